//! No scenario, valid or not, panics, hangs or exhausts memory: generated
//! scenarios (the shipped ones with random values put in random places)
//! go through validation, and those that pass run a short while.
//!
//! The fuzz target in `fuzz/` does the same from arbitrary bytes; this
//! test keeps the same property in the ordinary suite.

use proptest::prelude::*;
use tpsim::models::{Scenario, SimTime};

/// Every shipped scenario's text.
fn shipped() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Values that are wrong, or right but extreme, for most keys.
fn odd_value() -> impl Strategy<Value = toml::Value> {
    use toml::Value;
    prop_oneof![
        prop_oneof![
            Just(-1i64),
            Just(0),
            Just(1),
            Just(3),
            Just(1 << 40),
            Just(i64::MAX)
        ]
        .prop_map(Value::Integer),
        prop_oneof![
            Just(0.0),
            Just(-0.5),
            Just(0.3),
            Just(1e300),
            Just(f64::NAN),
            Just(f64::INFINITY)
        ]
        .prop_map(Value::Float),
        prop_oneof![
            Just("0s"),
            Just("0.1ns"),
            Just("1e30s"),
            Just("0.4B"),
            Just("-3KiB"),
            Just("1KiB"),
            Just("0.1w"),
            Just("1h"),
            Just("exit"),
            Just(""),
            Just("a\nb"),
            Just("ps"),
            Just("paging"),
            Just("swapping"),
            Just("7/s"),
        ]
        .prop_map(|s| Value::String(s.to_string())),
        any::<bool>().prop_map(Value::Boolean),
        Just(Value::Array(Vec::new())),
    ]
}

/// Every leaf of a TOML value, as a path of table keys and array indices.
fn leaves(value: &toml::Value, path: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                path.push(PathStep::Key(k.clone()));
                leaves(v, path, out);
                path.pop();
            }
        }
        toml::Value::Array(a) if !a.is_empty() => {
            for (i, v) in a.iter().enumerate() {
                path.push(PathStep::Index(i));
                leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn replace(value: &mut toml::Value, path: &[PathStep], new: toml::Value) {
    match path.split_first() {
        None => *value = new,
        Some((PathStep::Key(k), rest)) => {
            replace(value.as_table_mut().unwrap().get_mut(k).unwrap(), rest, new)
        }
        Some((PathStep::Index(i), rest)) => {
            replace(&mut value.as_array_mut().unwrap()[*i], rest, new)
        }
    }
}

/// Checks `text` and, if it is valid, runs it for a short while.
fn check_and_run(text: &str) {
    let Ok(mut scenario) = tpsim::models::load("generated.toml", text) else {
        return;
    };
    // A bounded run: a few thousand events, whatever the scenario says.
    match &mut scenario {
        Scenario::Network(net) => {
            net.settings.max_events = Some(5_000);
            net.settings.end_time = net.settings.end_time.min(SimTime::from_secs(1_000_000));
            net.settings.warmup = net.settings.warmup.min(net.settings.end_time);
            let _ = tpsim::models::simulate(net, net.settings.seed, 0);
        }
        Scenario::System(sys) => {
            sys.settings.max_events = Some(5_000);
            let _ = tpsim::models::system::simulate(sys, sys.settings.seed, 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_scenarios_never_panic(
        base in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), odd_value()), 0..4),
    ) {
        let texts = shipped();
        let text = base.get(&texts);
        let mut value: toml::Value = toml::from_str(text).unwrap();
        for (at, new) in edits {
            let mut paths = Vec::new();
            leaves(&value, &mut Vec::new(), &mut paths);
            if paths.is_empty() {
                break;
            }
            let path = at.get(&paths).clone();
            replace(&mut value, &path, new);
        }
        // NaN and infinity do not survive TOML text as written by every
        // writer; what cannot be written is not a scenario anyone has.
        if let Ok(text) = toml::to_string(&value) {
            check_and_run(&text);
        }
    }
}

/// Serde's and Rust's words, which a user of tpsim does not use.
const SERDE_WORDS: [&str; 16] = [
    "u8",
    "u16",
    "u32",
    "u64",
    "usize",
    "i64",
    "i128",
    "f64",
    "untagged",
    "enum",
    "sequence",
    "map",
    "struct",
    "variant",
    "invalid type",
    "invalid value",
];

/// Whether `line` holds a run of more than 20 digits: a number printed
/// whole, not as a person writes it.
fn long_number(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_digit())
        .any(|digits| digits.len() > 20)
}

/// Every refusal of a shipped scenario with one value replaced by an odd
/// one names its key in the message itself, in the user's words, with
/// numbers as a person writes them.
#[test]
fn every_refusal_names_its_key_in_the_users_words() {
    use toml::Value;
    let odd = [
        Value::Float(1e300),
        Value::Float(1e-30),
        Value::Integer(-1),
        Value::String("x".into()),
        Value::Array(vec![Value::Float(1e300)]),
        Value::Table(toml::Table::from_iter([(
            "k".to_string(),
            Value::Integer(1),
        )])),
    ];
    let mut refusals = 0;
    let mut bad = Vec::new();
    for text in shipped() {
        let value: Value = toml::from_str(&text).unwrap();
        let mut paths = Vec::new();
        leaves(&value, &mut Vec::new(), &mut paths);
        for path in &paths {
            for new in &odd {
                let mut changed = value.clone();
                replace(&mut changed, path, new.clone());
                let text = toml::to_string(&changed).unwrap();
                let Err(e) = tpsim::models::load("generated.toml", &text) else {
                    continue;
                };
                refusals += 1;
                let message = e.to_string();
                let said: Vec<&str> = match e {
                    // The first line names the key; the rest show where.
                    tpsim::models::ScenarioError::Syntax { .. } => {
                        message.lines().take(1).collect()
                    }
                    tpsim::models::ScenarioError::Invalid { .. } => message.lines().collect(),
                };
                for line in said {
                    let rest = line.strip_prefix("generated.toml: ").unwrap_or("");
                    let named = rest
                        .split_once(": ")
                        .is_some_and(|(key, _)| !key.is_empty() && !key.contains(' '));
                    let words = |w: &str| {
                        rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .any(|word| word == w)
                            || (w.contains(' ') && rest.contains(w))
                    };
                    if !named || SERDE_WORDS.iter().any(|w| words(w)) || long_number(line) {
                        bad.push(format!("{path:?} = {new}: {line}"));
                    }
                }
            }
        }
    }
    assert!(refusals > 1000, "only {refusals} refusals");
    bad.sort();
    bad.dedup();
    assert!(
        bad.is_empty(),
        "{} of {refusals} refusals are not in the user's words:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
