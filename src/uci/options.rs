//! The UCI options: their declarations and the checking of new values.

use crate::search::skill::{MAX_ELO, MIN_ELO};

/// Largest `Hash` in MB (64 GiB).
pub const MAX_HASH_MB: usize = 65_536;
pub const DEFAULT_HASH_MB: usize = 16;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;
pub const MAX_THREADS: usize = 256;

/// A checked new value for an option.
#[derive(Debug, PartialEq, Eq)]
pub enum Setting {
    Hash(usize),
    Threads(usize),
    MoveOverhead(u64),
    ClearHash,
    Ponder(bool),
    Chess960(bool),
    MultiPv(usize),
    SyzygyPath(String),
    ShowWdl(bool),
    LimitStrength(bool),
    Elo(u32),
    SkillLevel(u32),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    AnalyseMode(bool),
    /// A network file, or empty for the handcrafted evaluation.
    EvalFile(String),
    /// A search parameter was set (an `spsa` build).
    #[cfg_attr(not(feature = "spsa"), allow(dead_code))]
    Tunable,
}

/// `Skill Level` at full strength (and the default).
pub const MAX_SKILL_LEVEL: u32 = 20;
pub const MAX_SYZYGY_PROBE_DEPTH: u64 = 100;

/// The `option …` lines sent after `uci` (in an `spsa` build, every search
/// parameter too).
pub fn declarations() -> Vec<String> {
    let mut options = vec![
        format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"),
        format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
        format!(
            "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min 0 max 5000"
        ),
        "option name Clear Hash type button".into(),
        "option name Ponder type check default false".into(),
        "option name MultiPV type spin default 1 min 1 max 256".into(),
        "option name UCI_Chess960 type check default false".into(),
        "option name SyzygyPath type string default <empty>".into(),
        "option name UCI_ShowWDL type check default false".into(),
        "option name UCI_LimitStrength type check default false".into(),
        format!("option name UCI_Elo type spin default {MAX_ELO} min {MIN_ELO} max {MAX_ELO}"),
        format!(
            "option name Skill Level type spin default {MAX_SKILL_LEVEL} min 0 max {MAX_SKILL_LEVEL}"
        ),
        format!(
            "option name SyzygyProbeDepth type spin default 1 min 1 max {MAX_SYZYGY_PROBE_DEPTH}"
        ),
        "option name Syzygy50MoveRule type check default true".into(),
        "option name UCI_AnalyseMode type check default false".into(),
        format!(
            "option name EvalFile type string default {}",
            crate::nnue::EMBEDDED_NAME
        ),
    ];
    if cfg!(feature = "spsa") {
        options.extend(crate::search::params::TUNABLES.iter().map(|t| {
            format!(
                "option name {} type spin default {} min {} max {}",
                t.name, t.default, t.min, t.max
            )
        }));
    }
    options
}

fn check(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(str::trim) {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(format!("option {name} takes true or false")),
    }
}

fn spin(name: &str, value: Option<&str>, min: u64, max: u64) -> Result<u64, String> {
    let value = value.ok_or_else(|| format!("option {name} needs a value"))?;
    let n: u64 = value
        .trim()
        .parse()
        .map_err(|_| format!("option {name}: '{value}' is not a whole number"))?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "option {name}: {n} is out of range {min} to {max}, value unchanged"
        ))
    }
}

/// Checks a `setoption`; option names are matched ignoring case.
///
/// # Errors
/// For unknown options and bad values, with a message for the user.
pub fn parse_setting(name: &str, value: Option<&str>) -> Result<Setting, String> {
    let is = |n: &str| name.trim().eq_ignore_ascii_case(n);
    if is("Hash") {
        Ok(Setting::Hash(
            spin("Hash", value, 1, MAX_HASH_MB as u64)? as usize
        ))
    } else if is("Threads") {
        Ok(Setting::Threads(
            spin("Threads", value, 1, MAX_THREADS as u64)? as usize,
        ))
    } else if is("Move Overhead") {
        Ok(Setting::MoveOverhead(spin(
            "Move Overhead",
            value,
            0,
            5000,
        )?))
    } else if is("Clear Hash") {
        Ok(Setting::ClearHash)
    } else if is("Ponder") {
        check("Ponder", value).map(Setting::Ponder)
    } else if is("MultiPV") {
        Ok(Setting::MultiPv(spin("MultiPV", value, 1, 256)? as usize))
    } else if is("UCI_Chess960") {
        check("UCI_Chess960", value).map(Setting::Chess960)
    } else if is("UCI_LimitStrength") {
        check("UCI_LimitStrength", value).map(Setting::LimitStrength)
    } else if is("UCI_Elo") {
        Ok(Setting::Elo(
            spin("UCI_Elo", value, u64::from(MIN_ELO), u64::from(MAX_ELO))? as u32,
        ))
    } else if is("Skill Level") {
        Ok(Setting::SkillLevel(
            spin("Skill Level", value, 0, u64::from(MAX_SKILL_LEVEL))? as u32,
        ))
    } else if is("SyzygyProbeDepth") {
        Ok(Setting::SyzygyProbeDepth(
            spin("SyzygyProbeDepth", value, 1, MAX_SYZYGY_PROBE_DEPTH)? as i32,
        ))
    } else if is("Syzygy50MoveRule") {
        check("Syzygy50MoveRule", value).map(Setting::Syzygy50MoveRule)
    } else if is("UCI_AnalyseMode") {
        check("UCI_AnalyseMode", value).map(Setting::AnalyseMode)
    } else if is("EvalFile") {
        let path = value.map(str::trim).unwrap_or_default();
        Ok(Setting::EvalFile(if path == "<empty>" {
            String::new()
        } else {
            path.to_string()
        }))
    } else if is("UCI_ShowWDL") {
        check("UCI_ShowWDL", value).map(Setting::ShowWdl)
    } else if is("SyzygyPath") {
        // A path may hold spaces; `<empty>` (or nothing) switches the tables off.
        let path = value.map(str::trim).unwrap_or_default();
        Ok(Setting::SyzygyPath(if path == "<empty>" {
            String::new()
        } else {
            path.to_string()
        }))
    } else {
        tunable(name, value)
    }
}

/// A search parameter, in an `spsa` build.
#[cfg(feature = "spsa")]
fn tunable(name: &str, value: Option<&str>) -> Result<Setting, String> {
    let param = crate::search::params::TUNABLES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("no such option '{}'", super::parse::shorten(name)))?;
    let v = value
        .and_then(|v| v.trim().parse::<i64>().ok())
        .ok_or_else(|| format!("option {} takes a whole number", param.name))?;
    crate::search::params::set(param.name, v)?;
    Ok(Setting::Tunable)
}

#[cfg(not(feature = "spsa"))]
fn tunable(name: &str, _: Option<&str>) -> Result<Setting, String> {
    Err(format!("no such option '{}'", super::parse::shorten(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        assert_eq!(parse_setting("hash", Some("64")), Ok(Setting::Hash(64)));
        assert!(parse_setting("Hash", Some("0")).is_err());
        assert!(parse_setting("Hash", Some("999999999")).is_err());
        assert!(parse_setting("Hash", Some("lots")).is_err());
        assert!(parse_setting("Hash", None).is_err());
        assert_eq!(
            parse_setting("Move Overhead", Some("100")),
            Ok(Setting::MoveOverhead(100))
        );
        assert_eq!(parse_setting("Clear Hash", None), Ok(Setting::ClearHash));
        assert!(parse_setting("Nonsense", Some("1")).is_err());
        assert_eq!(parse_setting("Threads", Some("4")), Ok(Setting::Threads(4)));
        assert!(parse_setting("Threads", Some("257")).is_err());
        assert!(parse_setting("Threads", Some("0")).is_err());
        assert_eq!(
            parse_setting("skill level", Some("7")),
            Ok(Setting::SkillLevel(7))
        );
        assert!(parse_setting("Skill Level", Some("21")).is_err());
        assert!(parse_setting("SyzygyProbeDepth", Some("0")).is_err());
        assert_eq!(
            parse_setting("Syzygy50MoveRule", Some("false")),
            Ok(Setting::Syzygy50MoveRule(false))
        );
        assert_eq!(
            parse_setting("UCI_AnalyseMode", Some("true")),
            Ok(Setting::AnalyseMode(true))
        );
    }
}
