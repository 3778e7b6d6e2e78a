//! Protobuf paths as prost-build matches them (`.`, `.pkg.Msg.field`,
//! `Msg.field`), and extern paths.

use heck::ToUpperCamelCase;

use crate::model::prost_snake;

/// True if `pattern` names the element at fully qualified path `full`
/// (leading dot) or one that contains it: `.` matches everything, a path
/// with a leading dot matches itself and what it contains (at name
/// boundaries), one without a leading dot matches the paths that end with
/// it (at a name boundary).
pub(crate) fn matches(pattern: &str, full: &str) -> bool {
    if pattern == "." || pattern == full {
        return true;
    }
    if pattern.starts_with('.') {
        full.strip_prefix(pattern)
            .is_some_and(|rest| rest.starts_with('.'))
    } else {
        full.strip_suffix(pattern)
            .is_some_and(|head| head.ends_with('.'))
    }
}

/// The Rust path that `externs` (protobuf path with a leading dot, Rust
/// path) give the type `local` of `package`: the longest entry equal to
/// the type's path or to a prefix of it (at a name boundary). Package
/// names past the entry's become modules, names inside the type are
/// flattened as the generator names types (`Outer.Inner` -> `OuterInner`,
/// appended to the entry's last segment when the entry names a type).
pub(crate) fn extern_base(
    externs: &[(String, String)],
    package: &str,
    local: &[String],
) -> Option<String> {
    let pkg: Vec<&str> = package.split('.').filter(|s| !s.is_empty()).collect();
    let parts: Vec<&str> = pkg
        .iter()
        .copied()
        .chain(local.iter().map(String::as_str))
        .collect();
    let full = format!(".{}", parts.join("."));
    let (proto, rust) = externs
        .iter()
        .filter(|(p, _)| p.as_str() == full || full.starts_with(&format!("{p}.")))
        .fold(None::<&(String, String)>, |best, e| match best {
            Some(b) if b.0.len() >= e.0.len() => Some(b),
            _ => Some(e),
        })?;
    let covered = proto.split('.').filter(|s| !s.is_empty()).count();
    let mut out = rust.trim_end_matches("::").to_string();
    let mut flat = String::new();
    for (k, part) in parts.iter().enumerate().skip(covered) {
        if k < pkg.len() {
            out.push_str("::");
            out.push_str(&prost_snake(part));
        } else {
            flat.push_str(&part.to_upper_camel_case());
        }
    }
    if !flat.is_empty() {
        if covered <= pkg.len() {
            out.push_str("::");
        }
        out.push_str(&flat);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_as_prost_builds_do() {
        // Cases of prost-build's documentation (`btree_map`).
        let field = ".my_messages.MyMessageType.my_map_field";
        for p in [
            field,
            ".my_messages.MyMessageType",
            ".my_messages",
            ".",
            "my_map_field",
            "MyMessageType.my_map_field",
        ] {
            assert!(matches(p, field), "{p}");
        }
        for p in [
            ".my_messages.MyMessage",
            ".my",
            "map_field",
            "my_messages",
            ".my_messages.MyMessageType.my_map_field.x",
        ] {
            assert!(!matches(p, field), "{p}");
        }
    }

    #[test]
    fn extern_paths_map_packages_and_types() {
        let e = |p: &str, r: &str| (p.to_string(), r.to_string());
        let externs = [
            e(".uuid", "::uuid"),
            e(".foo.bar", "::foo_bar::"),
            e(".foo.bar.Special", "crate::special::Sp"),
        ];
        let local = |s: &str| s.split('.').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            extern_base(&externs, "uuid", &local("Uuid")).as_deref(),
            Some("::uuid::Uuid")
        );
        assert_eq!(
            extern_base(&externs, "uuid.v4", &local("Outer.Inner")).as_deref(),
            Some("::uuid::v4::OuterInner")
        );
        assert_eq!(
            extern_base(&externs, "foo.bar", &local("Msg")).as_deref(),
            Some("::foo_bar::Msg")
        );
        assert_eq!(
            extern_base(&externs, "foo.bar", &local("Special.Nested")).as_deref(),
            Some("crate::special::SpNested")
        );
        assert_eq!(
            extern_base(&externs, "foo.bar", &local("Special")).as_deref(),
            Some("crate::special::Sp")
        );
        assert_eq!(extern_base(&externs, "foo", &local("Msg")), None);
        assert_eq!(extern_base(&externs, "uuidx", &local("Msg")), None);
    }
}
