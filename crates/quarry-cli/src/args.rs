//! A small command-line parser shared by every subcommand: boolean flags,
//! options with a value (`--name VALUE` or `--name=VALUE`), positionals,
//! `-` as a positional (stdin) and `--` to end the options.

use std::ffi::OsString;

use crate::exit::Failure;

/// What a subcommand accepts.
pub struct Spec {
    /// Boolean flags, with their leading dashes (`"--json"`).
    pub flags: &'static [&'static str],
    /// Options taking one value (`"--repeat"`).
    pub options: &'static [&'static str],
    /// The usage text printed with a usage error.
    pub usage: &'static str,
}

/// A parsed command line.
#[derive(Debug, Default)]
pub struct Parsed {
    flags: Vec<&'static str>,
    options: Vec<(&'static str, String)>,
    /// Positional arguments in order (paths, so not necessarily UTF-8).
    pub positionals: Vec<OsString>,
    /// True when `-h` or `--help` was given.
    pub help: bool,
}

impl Parsed {
    /// True when `flag` was given.
    pub fn flag(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }

    /// The value of `option`, if given (the last one wins).
    pub fn option(&self, option: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(name, _)| *name == option)
            .map(|(_, value)| value.as_str())
    }

    /// The single positional argument, which is required.
    pub fn one_positional(&self, what: &str, spec: &Spec) -> Result<&OsString, Failure> {
        match self.positionals.as_slice() {
            [one] => Ok(one),
            [] => Err(Failure::usage(format!("missing {what}"), spec.usage)),
            [_, extra, ..] => Err(Failure::usage(
                format!("unexpected argument {:?}", extra.to_string_lossy()),
                spec.usage,
            )),
        }
    }
}

/// A format's command (`decode`, `encode`) and what runs it on the rest of
/// the command line.
pub type Command<I> = (&'static str, fn(I) -> Result<(), Failure>);

/// Run `quarry <format> <command> …`: the command named by the first of
/// `args` runs on the others; `-h`, `--help` and `help` print `usage`; a
/// missing or unknown command is a usage error naming `format`.
pub fn dispatch<I: Iterator<Item = OsString>>(
    format: &str,
    mut args: I,
    commands: &[Command<I>],
    usage: &'static str,
) -> Result<(), Failure> {
    let word = args.next();
    match word.as_ref().map(|w| w.to_string_lossy()) {
        Some(w) if matches!(w.as_ref(), "-h" | "--help" | "help") => {
            crate::output::write(usage.as_bytes())
        }
        Some(w) => match commands.iter().find(|(name, _)| *name == w) {
            Some((_, run)) => run(args),
            None => Err(Failure::usage(
                format!("unknown {format} command {w:?}"),
                usage,
            )),
        },
        None => Err(Failure::usage(format!("missing {format} command"), usage)),
    }
}

/// Parse `args` (everything after the subcommand words) against `spec`.
pub fn parse(args: impl IntoIterator<Item = OsString>, spec: &Spec) -> Result<Parsed, Failure> {
    let mut parsed = Parsed::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            parsed.positionals.push(arg);
            continue;
        };
        if text == "--" {
            parsed.positionals.extend(args);
            break;
        }
        if text == "-" || !text.starts_with('-') {
            parsed.positionals.push(arg);
            continue;
        }
        if text == "-h" || text == "--help" {
            parsed.help = true;
            continue;
        }
        let (name, inline_value) = match text.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (text, None),
        };
        if let Some(&flag) = spec.flags.iter().find(|&&f| f == name) {
            if inline_value.is_some() {
                return Err(Failure::usage(format!("{flag} takes no value"), spec.usage));
            }
            parsed.flags.push(flag);
        } else if let Some(&option) = spec.options.iter().find(|&&o| o == name) {
            let value = match inline_value {
                Some(value) => value,
                None => args
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| Failure::usage(format!("{option} needs a value"), spec.usage))?,
            };
            parsed.options.push((option, value));
        } else {
            return Err(Failure::usage(format!("unknown option {name}"), spec.usage));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        flags: &["--json", "--framed"],
        options: &["--repeat"],
        usage: "usage",
    };

    fn run(args: &[&str]) -> Result<Parsed, Failure> {
        parse(args.iter().map(OsString::from), &SPEC)
    }

    #[test]
    fn flags_options_positionals() {
        let p = run(&["--json", "--repeat", "5", "file", "--framed"]).unwrap();
        assert!(p.flag("--json") && p.flag("--framed"));
        assert_eq!(p.option("--repeat"), Some("5"));
        assert_eq!(p.positionals, vec![OsString::from("file")]);
        let p = run(&["--repeat=7", "-"]).unwrap();
        assert_eq!(p.option("--repeat"), Some("7"));
        assert_eq!(p.positionals, vec![OsString::from("-")]);
        let p = run(&["--", "--json"]).unwrap();
        assert!(!p.flag("--json"));
        assert_eq!(p.positionals, vec![OsString::from("--json")]);
    }

    #[test]
    fn usage_errors() {
        for bad in [&["--nope"][..], &["--repeat"], &["--json=1"]] {
            assert!(matches!(run(bad), Err(Failure::Usage { .. })), "{bad:?}");
        }
        let p = run(&["a", "b"]).unwrap();
        assert!(p.one_positional("FILE", &SPEC).is_err());
        assert!(run(&[]).unwrap().one_positional("FILE", &SPEC).is_err());
    }
}
