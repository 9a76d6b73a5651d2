//! GENGA's console arguments: `genga -dt 5 -I 100000 -out run2` sets `param.dat` keys from the
//! command line, each value replacing the file's (GENGA's `ConsoleArguments`). `orrery run
//! param.dat` takes the same arguments with the same meanings ([`CONSOLE_KEYS`]); `-M` and `-dev`
//! are Orrery's `--multi` and `--device` ([`CONSOLE_SWITCHES`]).

use crate::error::{Error, Location, Result};

/// GENGA's console arguments that set a `param.dat` key, with the key (its canonical name in
/// [`super::GENGA_KEYS`]).
pub const CONSOLE_KEYS: &[(&str, &str)] = &[
    ("-dt", "Time step in days"),
    ("-ei", "Energy output interval"),
    ("-ci", "Coordinates output interval"),
    ("-I", "Integration steps"),
    ("-n1", "n1"),
    ("-n2", "n2"),
    ("-in", "Input file"),
    ("-out", "Output name"),
    ("-R", "Restart timestep"),
    ("-TP", "Use Test Particles"),
    ("-Nmin", "Minimum number of bodies"),
    ("-NminTP", "Minimum number of test particles"),
    ("-SIO", "Order of integrator"),
    ("-sl", "Symplectic recursion levels"),
    ("-sls", "Symplectic recursion sub steps"),
    ("-aeN", "aeGrid name"),
    ("-collPrec", "Collision Precision"),
    ("-collTshift", "Collision Time Shift"),
];

/// GENGA's console arguments that are Orrery command-line options rather than keys: `-M` (the
/// multi-simulation list) and `-dev` (the device index).
pub const CONSOLE_SWITCHES: &[(&str, &str)] = &[("-M", "--multi"), ("-dev", "--device")];

/// GENGA's console arguments that Orrery does not take, with what GENGA does with them: refused
/// by name rather than misread.
pub const CONSOLE_REFUSED: &[(&str, &str)] = &[
    (
        "-t",
        "sets the start time of the simulation in years; Orrery's runs start at t = 0",
    ),
    (
        "-MT",
        "sets the number of simulations of GENGA's TTV calculations, which Orrery does not \
         implement",
    ),
];

/// GENGA's `-ndev N`, the number of devices one run spreads over: Orrery runs one device per
/// process, so only `-ndev 1` is taken (and has no effect).
pub const DEVICE_COUNT: &str = "-ndev";

/// The flags of a console table, space-separated.
fn flags(table: &[(&str, &str)]) -> String {
    table.iter().map(|c| c.0).collect::<Vec<_>>().join(" ")
}

/// One GENGA console argument as given: the flag (`-dt`) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleValue {
    pub flag: String,
    pub value: String,
}

/// The entry of [`CONSOLE_KEYS`] for a console flag (the flag and the `param.dat` key it
/// sets), if it sets one.
pub fn console_key(flag: &str) -> Option<(&'static str, &'static str)> {
    CONSOLE_KEYS.iter().find(|(f, _)| *f == flag).copied()
}

/// Where a console value is reported: the command line, the flag and the key it sets.
pub fn console_location(flag: &str, key: &str) -> Location {
    Location::default().field(format!("{flag} on the command line, param.dat key {key}"))
}

/// Split GENGA's console arguments off the words that follow `orrery run`: the key-setting
/// flags with their values come back apart, `-M` and `-dev` become `--multi` and `--device`,
/// and every other word stays in place for the option parser. A flag without a value, or given
/// twice, is an error at the command line.
pub fn split_console(words: Vec<String>) -> Result<(Vec<String>, Vec<ConsoleValue>)> {
    let mut rest = Vec::with_capacity(words.len());
    let mut console: Vec<ConsoleValue> = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let switch = CONSOLE_SWITCHES.iter().find(|(f, _)| *f == word);
        let key = console_key(&word).map(|(_, k)| k);
        let refused = CONSOLE_REFUSED.iter().find(|(f, _)| *f == word);
        if switch.is_none() && key.is_none() && refused.is_none() && word != DEVICE_COUNT {
            rest.push(word);
            continue;
        }
        let at = Location::default().field(format!("{word} on the command line"));
        if let Some((_, what)) = refused {
            return Err(Error::input(
                at,
                format!(
                    "GENGA's console argument `{word}` {what}; expected one of {} (each sets \
                     its param.dat key), {} or `{DEVICE_COUNT} 1`",
                    flags(CONSOLE_KEYS),
                    flags(CONSOLE_SWITCHES)
                ),
            ));
        }
        let Some(value) = words.next() else {
            return Err(Error::input(
                at,
                format!(
                    "GENGA's console argument `{word}` expects a value after it ({})",
                    match (key, switch) {
                        (Some(k), _) => format!("the param.dat key `{k}`"),
                        (None, Some(s)) => format!("as Orrery's {}", s.1),
                        (None, None) => "the number of devices".to_string(),
                    }
                ),
            ));
        };
        if word == DEVICE_COUNT {
            if value.trim() != "1" {
                return Err(Error::input(
                    at,
                    format!(
                        "`{word} {value}` spreads one run over several devices; Orrery runs one \
                         device per process: expected `{word} 1`, or shards of an ensemble or \
                         list on devices of their own (`--shard K/N --device D`)"
                    ),
                ));
            }
            continue;
        }
        match switch {
            Some(&(_, long)) => {
                rest.push(long.to_string());
                rest.push(value);
            }
            None => {
                if console.iter().any(|c| c.flag == word) {
                    return Err(Error::input(
                        at,
                        format!("`{word}` given twice; expected once"),
                    ));
                }
                console.push(ConsoleValue { flag: word, value });
            }
        }
    }
    Ok((rest, console))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn every_console_key_is_a_genga_key() {
        for (flag, key) in CONSOLE_KEYS {
            assert!(
                super::super::GENGA_KEYS.iter().any(|s| s.name == *key),
                "{flag} sets `{key}`, which is not in GENGA_KEYS"
            );
        }
    }

    #[test]
    fn split_takes_flags_and_values_apart_and_keeps_the_rest_in_order() {
        let (rest, console) = split_console(words(
            "param.dat -dt 3 --threads 2 -R -1 -M list -I 10 -dev 1",
        ))
        .unwrap();
        assert_eq!(rest, words("param.dat --threads 2 --multi list --device 1"));
        let got: Vec<(&str, &str)> = console
            .iter()
            .map(|c| (c.flag.as_str(), c.value.as_str()))
            .collect();
        assert_eq!(got, [("-dt", "3"), ("-R", "-1"), ("-I", "10")]);
    }

    #[test]
    fn a_flag_without_its_value_or_given_twice_is_refused_at_the_command_line() {
        let e = split_console(words("param.dat -dt"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("-dt on the command line") && e.contains("Time step in days"),
            "{e}"
        );
        let e = split_console(words("param.dat -I 1 -I 2"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`-I` given twice"), "{e}");
        let e = split_console(words("param.dat -M"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--multi"), "{e}");
        let e = split_console(words("param.dat -t 1"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`-t` sets the start time") && e.contains("-dt"),
            "{e}"
        );
        let e = split_console(words("param.dat -ndev 2"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("one device per process"), "{e}");
        let (rest, console) = split_console(words("param.dat -ndev 1 -sl 2")).unwrap();
        assert_eq!(rest, words("param.dat"));
        assert_eq!(console[0].flag, "-sl");
    }
}
