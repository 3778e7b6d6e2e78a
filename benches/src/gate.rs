//! The instruction-count gate: quarry's own callgrind counts against a
//! committed baseline.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

/// A committed baseline: instruction counts per bench and the allowed rise.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    /// Most a count may rise over its baseline, in percent.
    pub max_increase_pct: f64,
    /// Instruction count per bench name (`function/id`).
    pub instructions: BTreeMap<String, u64>,
    /// Where and with what the counts were taken (commit, rustc, valgrind):
    /// shown to whoever reads the file, not used by the check.
    pub provenance: BTreeMap<String, String>,
}

impl Baseline {
    /// Parse the baseline file.
    ///
    /// # Errors
    /// When the file is not JSON of the shape [`Baseline::to_json`] writes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let max_increase_pct = v["max_increase_pct"]
            .as_f64()
            .ok_or("no number max_increase_pct")?;
        let instructions = v["instructions"]
            .as_object()
            .ok_or("no object instructions")?
            .iter()
            .map(|(k, n)| {
                n.as_u64()
                    .map(|n| (k.clone(), n))
                    .ok_or_else(|| format!("instructions.{k} is not a count"))
            })
            .collect::<Result<_, _>>()?;
        let provenance = v["taken_with"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, s)| (k.clone(), s.as_str().unwrap_or_default().to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            max_increase_pct,
            instructions,
            provenance,
        })
    }

    /// The file text: pretty JSON with sorted keys, one count per line, so
    /// an update reads as a diff in review.
    pub fn to_json(&self) -> String {
        let v = json!({
            "about": "quarry's own callgrind instruction counts (Ir) per iai-callgrind bench. \
                      The gate fails when a count rises more than max_increase_pct over the one here. \
                      Regenerate: cargo run -p quarry-benches --bin iai_gate -- update",
            "max_increase_pct": self.max_increase_pct,
            "taken_with": self.provenance,
            "instructions": self.instructions,
        });
        serde_json::to_string_pretty(&v).expect("a JSON value serializes") + "\n"
    }
}

/// What the gate found for one bench.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Within the limit (`change_pct` may be negative).
    Ok {
        /// Baseline count.
        baseline: u64,
        /// This run's count.
        now: u64,
        /// Change in percent.
        change_pct: f64,
    },
    /// Rose more than the limit.
    Regressed {
        /// Baseline count.
        baseline: u64,
        /// This run's count.
        now: u64,
        /// Change in percent.
        change_pct: f64,
    },
    /// In the baseline but not measured in this run.
    Missing {
        /// Baseline count.
        baseline: u64,
    },
    /// Measured but not in the baseline.
    New {
        /// This run's count.
        now: u64,
    },
}

impl Verdict {
    /// Whether this verdict fails the gate.
    pub fn fails(&self) -> bool {
        !matches!(self, Verdict::Ok { .. })
    }
}

/// Compare this run's counts of the gated benches against the baseline.
pub fn check(baseline: &Baseline, now: &BTreeMap<String, u64>) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    for (name, &base) in &baseline.instructions {
        let verdict = match now.get(name) {
            None => Verdict::Missing { baseline: base },
            Some(&n) => {
                let change_pct = (n as f64 - base as f64) / base as f64 * 100.0;
                if n as f64 > base as f64 * (1.0 + baseline.max_increase_pct / 100.0) {
                    Verdict::Regressed {
                        baseline: base,
                        now: n,
                        change_pct,
                    }
                } else {
                    Verdict::Ok {
                        baseline: base,
                        now: n,
                        change_pct,
                    }
                }
            }
        };
        verdicts.insert(name.clone(), verdict);
    }
    for (name, &n) in now {
        if !baseline.instructions.contains_key(name) {
            verdicts.insert(name.clone(), Verdict::New { now: n });
        }
    }
    verdicts
}

/// A human report of the verdicts, one line per bench, failures named.
pub fn render(bench: &str, max_increase_pct: f64, verdicts: &BTreeMap<String, Verdict>) -> String {
    let mut out = String::new();
    for (name, v) in verdicts {
        let line = match v {
            Verdict::Ok {
                baseline,
                now,
                change_pct,
            } => format!(
                "ok         {bench}::{name}: {now} instructions (baseline {baseline}, {change_pct:+.2}%)"
            ),
            Verdict::Regressed {
                baseline,
                now,
                change_pct,
            } => format!(
                "REGRESSION {bench}::{name}: {now} instructions, baseline {baseline}: {change_pct:+.2}% (limit +{max_increase_pct}%)"
            ),
            Verdict::Missing { baseline } => format!(
                "MISSING    {bench}::{name}: in the baseline ({baseline} instructions) but not measured by this run"
            ),
            Verdict::New { now } => format!(
                "NEW        {bench}::{name}: {now} instructions, not in the baseline (run the update command)"
            ),
        };
        let _ = writeln!(out, "{line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(counts: &[(&str, u64)]) -> Baseline {
        Baseline {
            max_increase_pct: 2.0,
            instructions: counts.iter().map(|&(k, n)| (k.to_owned(), n)).collect(),
            provenance: BTreeMap::new(),
        }
    }

    fn run(counts: &[(&str, u64)]) -> BTreeMap<String, u64> {
        counts.iter().map(|&(k, n)| (k.to_owned(), n)).collect()
    }

    #[test]
    fn two_percent_passes_and_more_fails() {
        let b = baseline(&[("quarry_fresh/fanout", 10_000)]);
        let at_limit = check(&b, &run(&[("quarry_fresh/fanout", 10_200)]));
        assert!(!at_limit["quarry_fresh/fanout"].fails());
        let over = check(&b, &run(&[("quarry_fresh/fanout", 10_201)]));
        assert!(matches!(
            over["quarry_fresh/fanout"],
            Verdict::Regressed {
                baseline: 10_000,
                now: 10_201,
                ..
            }
        ));
    }

    #[test]
    fn improvements_pass() {
        let b = baseline(&[("quarry_reused/ack", 1_000)]);
        let v = check(&b, &run(&[("quarry_reused/ack", 500)]));
        assert!(!v["quarry_reused/ack"].fails());
    }

    #[test]
    fn missing_and_new_benches_fail() {
        let b = baseline(&[("quarry_fresh/small", 1_000)]);
        let v = check(&b, &run(&[("quarry_fresh/tiny", 900)]));
        assert_eq!(
            v["quarry_fresh/small"],
            Verdict::Missing { baseline: 1_000 }
        );
        assert_eq!(v["quarry_fresh/tiny"], Verdict::New { now: 900 });
    }

    #[test]
    fn the_report_names_the_regressed_case_and_its_numbers() {
        let b = baseline(&[("quarry_fresh/fanout", 10_000)]);
        let v = check(&b, &run(&[("quarry_fresh/fanout", 10_500)]));
        let text = render("wa_iai", 2.0, &v);
        assert!(text.contains(
            "REGRESSION wa_iai::quarry_fresh/fanout: 10500 instructions, baseline 10000: +5.00%"
        ));
    }

    #[test]
    fn baseline_file_round_trips() {
        let mut b = baseline(&[("quarry_fresh/fanout", 9026), ("quarry_reused/ack", 1083)]);
        b.provenance.insert("commit".into(), "abc1234".into());
        assert_eq!(Baseline::parse(&b.to_json()).unwrap(), b);
    }
}
