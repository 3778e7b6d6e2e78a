//! The README's first command: the quickstart runs, decodes every embedded
//! message, and each costs one allocation into a fresh arena and none into
//! a reused one (the counts are the binary's own counting allocator's).

use std::process::Command;

#[test]
fn quickstart_decodes_everything_with_one_allocation_fresh_and_none_reused() {
    let out = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .output()
        .expect("the quickstart runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    for section in [
        "== WhatsApp binary nodes ==",
        "== Nostr relay messages ==",
        "== Protobuf: WhatsApp's schema, through generated views ==",
    ] {
        assert!(stdout.contains(section), "missing {section:?}");
    }
    let decodes: Vec<&str> = stdout.lines().filter(|l| l.starts_with("-- ")).collect();
    // 4 stanzas, 2 relay messages, 6 protobuf samples.
    assert_eq!(decodes.len(), 12, "{stdout}");
    for line in decodes {
        assert!(
            line.ends_with("1 allocation(s) into a fresh arena, 0 into a reused one"),
            "{line}"
        );
    }
    assert!(
        stdout.contains("50 conversations, 1000 messages"),
        "{stdout}"
    );
    assert!(stdout.contains(r#""fullName":"Ada Lovelace""#), "{stdout}");
}
