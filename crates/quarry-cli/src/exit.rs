//! Exit statuses and the `error: …` line every failure prints.
//!
//! | status | meaning |
//! |---|---|
//! | 0 | success |
//! | 1 | I/O error (input file unreadable, stdout closed) |
//! | 2 | malformed input (decode error, bad JSON, a tree that cannot be encoded) or a usage error |

use std::process::ExitCode;

use quarry_core::DecodeError;

/// Success.
pub const EXIT_OK: u8 = 0;
/// Reading the input or writing the output failed.
pub const EXIT_IO: u8 = 1;
/// The input is malformed, or the command line is.
pub const EXIT_INVALID: u8 = 2;

/// Why a command failed; decides the exit status and what goes to stderr.
#[derive(Debug)]
pub enum Failure {
    /// A bad command line: `error: <message>`, then the usage text.
    Usage {
        /// What was wrong.
        message: String,
        /// The usage text of the command that was being parsed.
        usage: &'static str,
    },
    /// An I/O error: `error: <message>`.
    Io(String),
    /// Malformed input: `error: <message>`. For decode errors the message
    /// always ends in `at byte <offset>` (see [`Failure::decode`]).
    Invalid(String),
}

impl Failure {
    /// A usage error for the command whose usage text is `usage`.
    pub fn usage(message: impl Into<String>, usage: &'static str) -> Self {
        Failure::Usage {
            message: message.into(),
            usage,
        }
    }

    /// A decode error, printed as `<what> at byte <offset>`.
    ///
    /// The core error's own text sometimes says `at compressed byte N`;
    /// here every decode error ends in exactly ` at byte N`, so one pattern
    /// matches all of them. `context` (e.g. "inflated body") is put in front
    /// when the offset counts from somewhere other than the input's first
    /// byte.
    pub fn decode(error: &DecodeError, context: Option<&str>) -> Self {
        let offset = error.offset();
        let text = error.to_string();
        let what = [
            format!(" at byte {offset}"),
            format!(" at compressed byte {offset}"),
        ]
        .iter()
        .find_map(|suffix| text.strip_suffix(suffix.as_str()))
        .unwrap_or(&text)
        .to_owned();
        let what = match context {
            Some(context) => format!("{context}: {what}"),
            None => what,
        };
        Failure::Invalid(format!("{what} at byte {offset}"))
    }

    /// The exit status for this failure.
    pub fn status(&self) -> u8 {
        match self {
            Failure::Usage { .. } | Failure::Invalid(_) => EXIT_INVALID,
            Failure::Io(_) => EXIT_IO,
        }
    }

    /// Print the failure to stderr and return its exit status.
    pub fn report(&self) -> ExitCode {
        match self {
            Failure::Usage { message, usage } => eprint!("error: {message}\n\n{usage}"),
            Failure::Io(message) | Failure::Invalid(message) => eprintln!("error: {message}"),
        }
        ExitCode::from(self.status())
    }
}

/// Turn a command's result into the process exit status.
pub fn finish(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(failure) => failure.report(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(f: Failure) -> String {
        match f {
            Failure::Invalid(m) => m,
            other => panic!("not an input failure: {other:?}"),
        }
    }

    #[test]
    fn decode_errors_end_in_at_byte() {
        let eof = DecodeError::UnexpectedEof { offset: 7 };
        assert_eq!(
            message(Failure::decode(&eof, None)),
            "unexpected end of input at byte 7"
        );
        let zlib = DecodeError::Inflate {
            offset: 3,
            what: "adler32 mismatch",
        };
        assert_eq!(
            message(Failure::decode(&zlib, None)),
            "corrupt compressed data (adler32 mismatch) at byte 3"
        );
        assert_eq!(
            message(Failure::decode(&eof, Some("inflated body"))),
            "inflated body: unexpected end of input at byte 7"
        );
    }

    #[test]
    fn statuses() {
        assert_eq!(Failure::Io(String::new()).status(), 1);
        assert_eq!(Failure::Invalid(String::new()).status(), 2);
        assert_eq!(Failure::usage("x", "").status(), 2);
    }
}
