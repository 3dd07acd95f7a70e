//! A model of a measured host from its probe table: what `tpsim model`
//! writes.
//!
//! From a `tpsim probe` table ([`measure`]): each benchmark's processor
//! demand as the mean user + system time of its runs at the ramp's
//! lowest step, the ramp's steps as its `ramp_workers` column gives them
//! and how long each was held (inferred from when the column changes),
//! the other work on the machine as the processes runnable at the lowest
//! step beyond the ramp's workers and the probe itself, the probe's sleep
//! as the gaps between its cycles, and the memory available. From the
//! caller: the processors. [`scenario`] writes a scenario of it, each value
//! with its origin in a comment and everything else marked assumed, so
//! that `tpsim compare probe.csv host.toml --by ramp_workers` puts the
//! measurement and its model side by side, step by step.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a probe table says of its host.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Each benchmark, in the order the probe ran them: its name, its
    /// mean processor time (user + system) at the lowest step \[s\], and the
    /// runs that mean is of.
    pub benchmarks: Vec<(String, f64, usize)>,
    /// The ramp's lowest step: the workers its demands were measured
    /// beside.
    pub lowest: u32,
    /// The ramp's steps in the order they came, and how long each was held
    /// \[s\]; `None` without a ramp (no column, or no worker ever).
    pub ramp: Option<(Vec<u32>, f64)>,
    /// The mean processes runnable at the lowest step beyond the ramp's
    /// workers and the probe reading `/proc/stat`: other work on the
    /// machine.
    pub outside: f64,
    /// The shortest and longest gap between the end of a cycle's last
    /// benchmark and the start of the next cycle \[s\]: the probe's sleep
    /// and its own reading of the load; `None` with one cycle.
    pub sleep: Option<(f64, f64)>,
    /// The most memory available (`free_memory_bytes`) at the lowest step.
    pub memory: u64,
    /// From the first run's start to the last one's end \[s\].
    pub span: f64,
    /// Runs that succeeded, and runs left out (their status not `ok`).
    pub runs: (usize, usize),
}

/// One run of a benchmark.
struct Run {
    /// Whether it succeeded (its status `ok`): only those give demands.
    ok: bool,
    benchmark: String,
    start: f64,
    elapsed: f64,
    cpu: f64,
    runnable: u32,
    workers: u32,
    free_memory: u64,
}

/// The columns a table must have.
const NEEDED: [&str; 7] = [
    "benchmark",
    "start_s",
    "elapsed_s",
    "user_s",
    "system_s",
    "runnable",
    "free_memory_bytes",
];

/// Reads a probe table (a `tpsim probe` probe.csv, or any table with its
/// columns; `ramp_workers` and `status` may be missing). Says what is
/// wrong, naming the column and line, when it cannot be read.
pub fn measure(table: &str) -> Result<Measured, String> {
    let all = read_runs(table)?;
    let runs: Vec<&Run> = all.iter().filter(|r| r.ok).collect();
    let failed = all.len() - runs.len();
    if runs.is_empty() {
        return Err(match failed {
            0 => "no runs: the table has a header only".to_string(),
            n => format!("no run succeeded ({n} left out by their status)"),
        });
    }
    let lowest = runs.iter().map(|r| r.workers).min().expect("a run");
    let at_lowest = || runs.iter().filter(|r| r.workers == lowest);
    let mut order: Vec<&str> = Vec::new();
    for r in &runs {
        if !order.contains(&r.benchmark.as_str()) {
            order.push(&r.benchmark);
        }
    }
    let mut demands: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for r in at_lowest() {
        let d = demands.entry(&r.benchmark).or_default();
        d.0 += r.cpu;
        d.1 += 1;
    }
    let benchmarks = order
        .iter()
        .map(|&b| match demands.get(b) {
            Some(&(sum, n)) => Ok((b.to_string(), sum / n as f64, n)),
            None => Err(format!(
                "benchmark {b} has no run at the ramp's lowest step ({lowest} workers), where the demands are measured"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let lowest_runs = at_lowest().count() as f64;
    let runnable = at_lowest().map(|r| f64::from(r.runnable)).sum::<f64>() / lowest_runs;
    // The timings from every run, failed or not: a run that failed still
    // took its time in the cycle.
    let first = &all[0];
    let last = all.last().expect("a run");
    Ok(Measured {
        benchmarks,
        lowest,
        ramp: ramp(&all),
        outside: (runnable - f64::from(lowest) - 1.0).max(0.0),
        sleep: sleep(&all, order[0]),
        memory: at_lowest().map(|r| r.free_memory).max().unwrap_or(0),
        span: last.start + last.elapsed - first.start,
        runs: (runs.len(), failed),
    })
}

/// The runs in order of their start.
fn read_runs(table: &str) -> Result<Vec<Run>, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(table.as_bytes());
    let header = reader.headers().map_err(|e| e.to_string())?.clone();
    let at = |name: &str| header.iter().position(|c| c == name);
    let mut columns = [0; NEEDED.len()];
    for (slot, name) in columns.iter_mut().zip(NEEDED) {
        *slot = at(name)
            .ok_or_else(|| format!("no column {name}: a probe table has {}", NEEDED.join(", ")))?;
    }
    let [benchmark, start, elapsed, user, system, runnable, free] = columns;
    let (status, workers) = (at("status"), at("ramp_workers"));
    let mut runs = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| e.to_string())?;
        let line = i + 2;
        let ok = status.is_none_or(|s| record.get(s) == Some("ok"));
        let field = |at: usize| record.get(at).unwrap_or("");
        let number = |at: usize, name: &str| -> Result<f64, String> {
            field(at)
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| {
                    format!(
                        "line {line}, column {name}: \"{}\" is not a number >= 0",
                        field(at)
                    )
                })
        };
        let count = |at: usize, name: &str| -> Result<u32, String> {
            field(at).parse::<u32>().map_err(|_| {
                format!(
                    "line {line}, column {name}: \"{}\" is not a whole number",
                    field(at)
                )
            })
        };
        runs.push(Run {
            ok,
            benchmark: field(benchmark).to_string(),
            start: number(start, "start_s")?,
            elapsed: number(elapsed, "elapsed_s")?,
            cpu: number(user, "user_s")? + number(system, "system_s")?,
            runnable: count(runnable, "runnable")?,
            workers: match workers {
                Some(w) => count(w, "ramp_workers")?,
                None => 0,
            },
            free_memory: number(free, "free_memory_bytes")? as u64,
        });
    }
    runs.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok(runs)
}

/// The ramp's steps, as its column changes over the runs, and the time
/// each was held: the median over steps k >= 1 of (first run at step k -
/// first run) / k, the probe having changed step before that run.
fn ramp(runs: &[Run]) -> Option<(Vec<u32>, f64)> {
    let t0 = runs[0].start;
    let mut steps = vec![runs[0].workers];
    let mut holds = Vec::new();
    for r in runs {
        if r.workers != *steps.last().expect("a step") {
            steps.push(r.workers);
            holds.push((r.start - t0) / (steps.len() - 1) as f64);
        }
    }
    if steps == [0] {
        return None;
    }
    holds.sort_by(f64::total_cmp);
    let span = runs.last().map_or(0.0, |r| r.start + r.elapsed) - t0;
    let hold = holds.get(holds.len() / 2).copied().unwrap_or(span);
    Some((steps, hold))
}

/// The gaps between cycles: a run of the first benchmark after another
/// run starts a cycle; the gap is from the end of the run before it.
fn sleep(runs: &[Run], first: &str) -> Option<(f64, f64)> {
    let gaps: Vec<f64> = runs
        .windows(2)
        .filter(|w| w[1].benchmark == first)
        .map(|w| w[1].start - (w[0].start + w[0].elapsed))
        .filter(|g| *g >= 0.0)
        .collect();
    let low = gaps.iter().copied().reduce(f64::min)?;
    let high = gaps.iter().copied().reduce(f64::max)?;
    Some((low, high))
}

/// A duration as a scenario writes it, to the nanosecond: `1.7025ms`,
/// `40.2s`.
fn duration(seconds: f64) -> String {
    let (value, unit, places) = if seconds < 1.0 {
        (seconds * 1e3, "ms", 6)
    } else {
        (seconds, "s", 9)
    };
    let text = format!("{value:.places$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{unit}")
}

/// A string as TOML quotes it.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A class name for the model's own work, `wanted` unless a benchmark has
/// it.
fn own_name(wanted: &str, benchmarks: &[(String, f64, usize)]) -> String {
    let mut name = wanted.to_string();
    while benchmarks.iter().any(|(b, _, _)| *b == name) {
        name.push('_');
    }
    name
}

/// The work a model of the host assumes, where the table says nothing.
const ASSUMED: &str = "\
# Assumed, where the table says nothing: Linux's fair scheduler (EEVDF)
# with its default 0.70 ms base slice, seen at a 4 ms tick (HZ = 250), and
# a 5 us switch; memory never short; programs read from the page cache in
# no time; a ramp's worker a processor loop (a memory or files worker is
# another class: edit it).";

/// A scenario of the host `m`, named `name`, with `cpus` processors (whose
/// origin `cpus_from` names), measured in `source`.
pub fn scenario(m: &Measured, name: &str, cpus: u32, cpus_from: &str, source: &str) -> String {
    // In comments: no line break or other control character of a path.
    let source: String = source
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let mut s = String::new();
    let (runs, failed) = m.runs;
    let _ = writeln!(
        s,
        "# A model of the host measured in {source}, written by `tpsim model`\n\
         # from {runs} runs ({failed} left out by their status). Compare them with\n\
         # `tpsim compare {source} THIS.toml --by ramp_workers`.\n{ASSUMED}"
    );
    let _ = writeln!(s, "name = {}\nseed = 1\n", quoted(name));
    let _ = writeln!(
        s,
        "[run]\nend_time = \"{}\"            # the measurement's span\nwarmup = \"0s\"\n",
        duration(m.span.max(1.0))
    );
    machine(&mut s, m, cpus, cpus_from);
    work(&mut s, m);
    probe(&mut s, m);
    s
}

/// The machine: its processors, memory, devices and the one user.
fn machine(s: &mut String, m: &Measured, cpus: u32, cpus_from: &str) {
    let _ = writeln!(
        s,
        "[system]\ncpus = {cpus}                      # {cpus_from}\nscheduler = \"fair\"\nquantum = \"4ms\"               # the tick at HZ = 250, assumed\ncontext_switch = \"5us\"        # assumed\n"
    );
    let mib = m.memory.div_ceil(1 << 20).max(1) + 64;
    let _ = writeln!(
        s,
        "[memory]\npolicy = \"swapping\"\nsize = \"{mib}MiB\"             # the most free_memory_bytes at the lowest step, plus the kernel\nkernel = \"64MiB\"              # assumed\npage = \"4KiB\"\ndevice = \"disk\"\nprograms = \"cache\"\n"
    );
    let _ = writeln!(
        s,
        "[[device]]\nname = \"disk\"\nseek = \"5ms\"                  # assumed; no benchmark does I/O\nrate = \"100MB/s\"\n\n[[device]]\nname = \"cache\"                # programs come from the page cache: no time\nrate = \"1000GB/s\"\n"
    );
    let first = &m.benchmarks[0].0;
    let _ = writeln!(
        s,
        "[users]\nterminals = 1                 # logged in, never typing: only the probe measures\nthink = {{ det = {{ value = \"1000000s\" }} }}\ncommands = [{{ class = {}, weight = 1 }}]\nprocesses = \"all\"             # every process counted, the other work's loops too (a ramp's workers always are)\n",
        quoted(first)
    );
}

/// The work: each benchmark's class, the ramp's workers' and the other
/// work's.
fn work(s: &mut String, m: &Measured) {
    for (benchmark, demand, n) in &m.benchmarks {
        let _ = writeln!(
            s,
            "[[class]]\nname = {}\ncpu = {{ det = {{ value = \"{}\" }} }}   # mean user + system time of its {n} runs at {} workers\nsize = \"64KiB\"                # assumed\n",
            quoted(benchmark),
            duration(*demand),
            m.lowest
        );
    }
    let worker = own_name("ramp-worker", &m.benchmarks);
    if m.ramp.is_some() {
        let _ = writeln!(
            s,
            "[[class]]\nname = {}         # a processor loop\ncpu = {{ det = {{ value = \"10ms\" }} }}   # assumed: how often it goes back to the queue\nsize = \"64KiB\"\n",
            quoted(&worker)
        );
    }
    if m.outside >= 0.01 {
        let outside = own_name("outside-work", &m.benchmarks);
        let count = m.outside.ceil();
        // Each of `count` processes busy a fraction outside/count of the
        // time: 10 ms of work, then a sleep with the rest.
        let idle = 0.010 * (count / m.outside - 1.0);
        let _ = writeln!(
            s,
            "[[class]]\nname = {}\ncpu = {{ det = {{ value = \"10ms\" }} }}   # assumed shape\nsize = \"64KiB\"\n\n\
             # Other work: {:.3} processes runnable on the mean at the lowest step\n\
             # beyond the ramp's workers and the probe (measured), as {count} loops\n\
             # each busy {:.1}% of the time (assumed shape).\n\
             [[background]]\nname = \"outside\"\nclass = {}\ncount = {count}\nsleep = {{ exp = {{ mean = \"{}\" }} }}\n",
            quoted(&outside),
            m.outside,
            100.0 * m.outside / count,
            quoted(&outside),
            duration(idle.max(1e-6))
        );
    }
}

/// The probe: its benchmarks, its sleep and its ramp.
fn probe(s: &mut String, m: &Measured) {
    let worker = own_name("ramp-worker", &m.benchmarks);
    let benchmarks: Vec<String> = m.benchmarks.iter().map(|(b, _, _)| quoted(b)).collect();
    let _ = writeln!(s, "[probe]\nbenchmarks = [{}]", benchmarks.join(", "));
    match m.sleep {
        Some((low, high)) if high > low => {
            let _ = writeln!(
                s,
                "sleep = {{ uniform = {{ low = \"{}\", high = \"{}\" }} }}   # gaps between cycles: the sleep and the probe's reading",
                duration(low),
                duration(high)
            );
        }
        Some((gap, _)) => {
            let _ = writeln!(
                s,
                "sleep = \"{}\"                # the gap between cycles",
                duration(gap.max(1e-6))
            );
        }
        None => {
            let _ = writeln!(
                s,
                "sleep = \"1s\"                  # assumed: one cycle only"
            );
        }
    }
    if let Some((steps, hold)) = &m.ramp {
        let steps: Vec<String> = steps.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "# The ramp's steps as ramp_workers gives them; each step's hold\n\
             # inferred from when the column changes.\n\
             ramp = {{ class = {}, workers = [{}], hold = \"{}\" }}",
            quoted(&worker),
            steps.join(", "),
            duration(*hold)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cycles a step of a ramp of 0, 2 and 1 workers held 10 s, two
    /// benchmarks, one run failed, a benchmark named like the worker.
    const TABLE: &str = "benchmark,start_s,phase,users,processes,runnable,free_memory_bytes,elapsed_s,user_s,system_s,ramp_workers,status\n\
        a,100.0,measured,0,5,1,1000000,0.5,0.1,0.02,0,ok\n\
        ramp-worker,100.6,measured,0,5,2,2000000,0.1,0.01,0.0,0,ok\n\
        a,101.7,measured,0,5,1,1500000,0.5,0.12,0.02,0,ok\n\
        ramp-worker,102.3,measured,0,5,1,1000000,0.1,0.03,0.0,0,ok\n\
        a,110.5,measured,0,7,3,1000000,0.9,0.1,0.02,2,ok\n\
        ramp-worker,111.5,measured,0,7,3,1000000,0.2,0.01,0.0,2,exit 1\n\
        a,112.8,measured,0,7,3,1000000,0.9,0.1,0.02,2,ok\n\
        a,121.0,measured,0,6,2,1000000,0.7,0.1,0.02,1,ok\n";

    #[test]
    fn a_table_gives_the_demands_the_ramp_the_outside_load_and_the_sleep() {
        let m = measure(TABLE).unwrap();
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!(m.benchmarks.len(), 2);
        let (a, demand, n) = &m.benchmarks[0];
        assert_eq!((a.as_str(), *n), ("a", 2));
        assert!(near(*demand, 0.13), "{demand}");
        assert!(near(m.benchmarks[1].1, 0.02));
        assert_eq!(m.lowest, 0);
        // Changes at 10.5 s (step 1) and 21 s (step 2): 10.5 and 10.5 a step.
        let (steps, hold) = m.ramp.clone().unwrap();
        assert_eq!(steps, [0, 2, 1]);
        assert!(near(hold, 10.5), "{hold}");
        // Runnable 1.25 on the mean at step 0, less the probe: 0.25.
        assert!(near(m.outside, 0.25), "{}", m.outside);
        // Gaps before each run of `a` after another run, the failed one's
        // time counted: 1.0, 8.1, 1.1 and 7.3 s.
        let (low, high) = m.sleep.unwrap();
        assert!(near(low, 1.0) && near(high, 8.1), "{low} {high}");
        assert_eq!(m.memory, 2_000_000);
        assert_eq!(m.runs, (7, 1));
        assert!(near(m.span, 21.7));
    }

    #[test]
    fn the_scenario_says_where_each_value_comes_from_and_names_its_own_classes_apart() {
        let m = measure(TABLE).unwrap();
        let text = scenario(&m, "host", 2, "given: --cpus", "measured/probe.csv");
        // A scenario `check` takes.
        tpsim_models::load_system("host.toml", &text).unwrap();
        for line in [
            "cpus = 2                      # given: --cpus",
            "cpu = { det = { value = \"130ms\" } }   # mean user + system time of its 2 runs at 0 workers",
            "name = \"ramp-worker_\"         # a processor loop",
            "ramp = { class = \"ramp-worker_\", workers = [0, 2, 1], hold = \"10.5s\" }",
            "sleep = { uniform = { low = \"1s\", high = \"8.1s\" } }   # gaps between cycles: the sleep and the probe's reading",
            "count = 1",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
    }

    #[test]
    fn a_table_that_cannot_make_a_model_is_refused_saying_why() {
        let header =
            "benchmark,start_s,elapsed_s,user_s,system_s,runnable,free_memory_bytes,status";
        for (table, says) in [
            ("benchmark,start_s\nx,1\n", "no column elapsed_s"),
            (header, "the table has a header only"),
            (
                &format!("{header}\nx,1,1,0,0,1,0,timeout\n") as &str,
                "no run succeeded (1 left out",
            ),
            (
                &format!("{header}\nx,1,one,0,0,1,0,ok\n"),
                "line 2, column elapsed_s: \"one\" is not a number",
            ),
            (
                &format!("{header},ramp_workers\nx,1,1,0,0,1,0,ok,0\ny,2,1,0,0,1,0,ok,3\n"),
                "benchmark y has no run at the ramp's lowest step (0 workers)",
            ),
        ] {
            let e = measure(table).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
    }
}
