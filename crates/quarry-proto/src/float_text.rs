//! Finite floating-point numbers as protobuf's C++ printers write them, so
//! that the text format (`protoc --decode`) and the JSON mapping agree with
//! protobuf digit for digit. Both printers share these; each writes the
//! non-finite values its own way.

/// A finite `double` as protobuf's `SimpleDtoa`: C's `%.15g`, or `%.17g`
/// when 15 digits do not read back as the same double.
pub(crate) fn double_digits(v: f64) -> String {
    let short = format_g(v, 15);
    if short.parse::<f64>().ok() == Some(v) {
        short
    } else {
        format_g(v, 17)
    }
}

/// A finite `float` as protobuf's `SimpleFtoa`: C's `%.6g`, or `%.9g` when 6
/// digits do not read back as the same float, or when the float is
/// subnormal. (Protobuf checks the read-back with `strtof`, which reports a
/// range error for every subnormal result, so those always take 9 digits;
/// `protoc --decode` prints `1e-45f` as `1.40129846e-45`.)
pub(crate) fn float_digits(v: f32) -> String {
    let wide = f64::from(v);
    if v.is_subnormal() {
        return format_g(wide, 9);
    }
    let short = format_g(wide, 6);
    if short.parse::<f32>().ok() == Some(v) {
        short
    } else {
        format_g(wide, 9)
    }
}

/// C's `%.{precision}g` for a finite `v`: `precision` significant digits,
/// trailing zeros removed, scientific notation (`1e+20`, two exponent
/// digits at least) when the exponent is below -4 or at least `precision`.
pub(crate) fn format_g(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Rust's `{:.Ne}` rounds exactly, like printf.
    let sci = format!("{:.*e}", precision - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, digits_part) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = digits_part.chars().filter(|c| *c != '.').collect();
    if exp < -4 || exp >= precision as i32 {
        let mut m = String::from(&digits[..1]);
        let rest = digits[1..].trim_end_matches('0');
        if !rest.is_empty() {
            m.push('.');
            m.push_str(rest);
        }
        let (es, ea) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
        format!("{sign}{m}e{es}{ea:02}")
    } else if exp >= 0 {
        let split = exp as usize + 1;
        let int_part = &digits[..split];
        let frac = digits[split..].trim_end_matches('0');
        if frac.is_empty() {
            format!("{sign}{int_part}")
        } else {
            format!("{sign}{int_part}.{frac}")
        }
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        let frac = digits.trim_end_matches('0');
        format!("{sign}0.{zeros}{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g_matches_printf() {
        // Expected strings are what C's printf writes for these formats.
        assert_eq!(format_g(1.0, 15), "1");
        assert_eq!(format_g(0.1, 15), "0.1");
        assert_eq!(format_g(1e20, 15), "1e+20");
        assert_eq!(format_g(123456.0, 6), "123456");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
        assert_eq!(format_g(0.0001, 15), "0.0001");
        assert_eq!(format_g(0.00001, 15), "1e-05");
        assert_eq!(format_g(-2.5, 15), "-2.5");
        assert_eq!(format_g(-0.0, 15), "-0");
        assert_eq!(format_g(0.30000000000000004, 17), "0.30000000000000004");
        assert_eq!(format_g(1e100, 17), "1e+100");
    }

    #[test]
    fn doubles_and_floats_round_trip_like_simple_dtoa() {
        assert_eq!(double_digits(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(float_digits(0.1), "0.1");
        // 16777217 is 16777216 as a float; %.6g gives 1.67772e+07, which
        // does not read back, %.9g gives 16777216.
        assert_eq!(float_digits(16_777_217.0), "16777216");
    }

    #[test]
    fn subnormal_floats_take_nine_digits_as_protoc_prints_them() {
        // What `protoc --decode` (libprotoc 35.1, glibc) printed for these
        // values of a `float` and a `double` field.
        assert_eq!(float_digits(1e-45), "1.40129846e-45");
        assert_eq!(float_digits(1e-40), "9.9999461e-41");
        assert_eq!(float_digits(1.175_494_2e-38), "1.17549421e-38");
        assert_eq!(float_digits(f32::MIN_POSITIVE), "1.17549435e-38");
        assert_eq!(float_digits(1e-37), "1e-37");
        // Doubles are checked without `errno`: subnormals keep 15 digits
        // when those read back.
        assert_eq!(double_digits(5e-324), "4.94065645841247e-324");
        assert_eq!(double_digits(1e-310), "9.99999999999997e-311");
        assert_eq!(
            double_digits(2.225_073_858_507_201e-308),
            "2.2250738585072009e-308"
        );
    }
}
