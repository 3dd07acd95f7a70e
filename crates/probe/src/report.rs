//! Tables and CSV files from a run's summary.

use crate::algebra::{Attribution, Breakdown, Decomposition, Installation};
use crate::analysis::{Grouping, LevelRow, Options};
use crate::compare::{ComparisonRow, CurveTest, Method};
use crate::host::HostObservation;
use comfy_table::{CellAlignment, Table, presets};
use tpsim_models::Summary;
use tpsim_models::analytic::{ClosedModel, MvaPoint};
use tpsim_models::summary::{CpuSplit, FilesSummary, PagingSummary};
use tpsim_models::system::{LifetimePoint, LoadSample, Observation, SetSizePoint};
use tpsim_models::units::{Figure, Fixed};

fn fixed(x: f64) -> String {
    Fixed(x, 4).to_string()
}

/// A measure that may be missing (no completions, no one waits in line):
/// a dash in a table.
pub(crate) fn maybe(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), fixed)
}

/// `n` things, with the noun in the singular for one: "1 class",
/// "2 classes".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The note for a class whose commands (or background processes) could
/// not run at all, `rejected` of them.
pub fn rejected_note(rejected: u64, background: bool, class: &str) -> String {
    format!(
        "{rejected} {} of class {class} could not run: the image is larger than user memory (or the process limit), and a swapping system must hold it whole",
        if background { "processes" } else { "commands" }
    )
}

/// What the terminal says of a run a signal stopped at `sim_time` \[s\].
pub fn interrupted_note(sim_time: f64) -> String {
    format!("interrupted at {sim_time} s of simulated time; the results cover the run up to then")
}

/// What the terminal says of a run `run.max_events` stopped at `sim_time`
/// \[s\], `before_warmup` if that was before the end of its warm-up.
pub fn event_limit_note(sim_time: f64, before_warmup: bool) -> String {
    format!(
        "run.max_events stopped the run at {sim_time} s of simulated time, before run.end_time{}",
        if before_warmup {
            "; it never reached the end of the warm-up, so its figures include it"
        } else {
            ""
        }
    )
}

/// What the terminal says of a run whose clock stood still at `sim_time`
/// \[s\], `last` the last event.
pub fn stalled_note(sim_time: f64, last: &str) -> String {
    format!(
        "the clock stood still at {sim_time} s for {} events in a row (the last: {last}): some cycle of the model takes no time, so the run could never reach its end; the results up to then were reported",
        tpsim_models::STALL_EVENTS
    )
}

/// Why a run may have completed no job or command after its warm-up, if
/// it completed none: the stations busy throughout, or everything idle
/// throughout. `classes` are each class's (whether it is background
/// processes, completions), `stations` each station's (name, utilization);
/// `cpu_idle` is a time-sharing system's idle fraction (`None` for a
/// network), `observations` the probe's after the warm-up, `sim_time` the
/// run's simulated time \[s\]. `None` when something completed, or when
/// the only classes are background processes, which need not end. When
/// the probe measured, users who typed nothing are only said to have (a
/// probe-only scenario).
pub fn nothing_completed(
    classes: &[(bool, u64)],
    stations: &[(&str, f64)],
    cpu_idle: Option<f64>,
    observations: u64,
    sim_time: f64,
) -> Option<String> {
    let measured: Vec<u64> = classes
        .iter()
        .filter(|(background, _)| !background)
        .map(|&(_, completions)| completions)
        .collect();
    if measured.is_empty() || measured.iter().any(|&c| c > 0) {
        return None;
    }
    if observations > 0 {
        return Some(
            "the users completed no command after the warm-up: only the probe's benchmarks were measured"
                .to_string(),
        );
    }
    let busy: Vec<&str> = stations
        .iter()
        .filter(|(_, u)| *u >= 0.999)
        .map(|(name, _)| *name)
        .collect();
    let what = if cpu_idle.is_some() { "command" } else { "job" };
    let cause = if !busy.is_empty() {
        format!(
            "{} busy throughout: a service, transfer or fault time far longer than the run, or a queue that never drains",
            busy.join(", ")
        )
    } else if cpu_idle.is_some_and(|idle| idle >= 0.999) || stations.iter().all(|(_, u)| *u < 0.001)
    {
        "everything idle throughout: arrivals or think times far longer than the run, or a device too slow to finish one transfer".to_string()
    } else {
        "a run too short for one to finish: lengthen run.end_time, or shorten the warm-up"
            .to_string()
    };
    Some(format!(
        "the run completed no {what} after its warm-up ({} s simulated); likely cause: {cause}",
        Figure(sim_time)
    ))
}

/// `x` to three significant digits, as a person writes it: 5.6, 4.08,
/// 0.0123; a number of four digits or more keeps its whole part.
pub(crate) fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!(
        "{}",
        Figure(format!("{x:.decimals$}").parse().expect("a number"))
    )
}

/// An interval as a person writes one: `[-3.6677, -0.2073]`.
fn interval((low, high): (f64, f64)) -> String {
    format!("[{}, {}]", fixed(low), fixed(high))
}

/// A load level: a whole number as it is, the mean of merged levels to
/// two decimals (5.86, not 5.857142857142857).
fn level(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x}")
    } else {
        format!("{x:.2}")
    }
}

/// A name as a table cell: a `|` would end the cell early in Markdown.
fn cell(name: &str) -> String {
    name.replace('|', "\\|")
}

pub(crate) fn new_table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_MARKDOWN)
        .set_header(header.to_vec());
    for i in 1..header.len() {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// What the columns of the tables mean, printed under them.
const CLASS_LEGEND: &str = "
Station figures are per visit: response runs from arrival to departure,
wait from arrival to the start of service; P(wait) is the fraction of
visits that waited (a dash: no one waits in line there, or nothing ended).
Utilization is per server. A class's response runs from a job's arrival
(or the end of a think time) to its exit; ±95% is how far a batch-means
confidence interval for its mean, from this run alone, reaches from it (the
larger side: the interval leans toward long responses).
";

/// The summary as text for a terminal: a heading, a table of stations and a
/// table of classes. The wall-clock time is left out so that the text is the
/// same for every run of the same scenario and seed.
pub fn table(summary: &Summary) -> String {
    let mut stations = new_table(&[
        "station",
        "discipline",
        "servers",
        "utilization",
        "throughput [1/s]",
        "mean number present",
        "response per visit [s]",
        "wait per visit [s]",
        "P(wait)",
    ]);
    for s in &summary.stations {
        stations.add_row(vec![
            cell(&s.name),
            s.discipline.to_string(),
            s.servers.to_string(),
            fixed(s.utilization),
            fixed(s.throughput),
            fixed(s.mean_queue_length),
            maybe(s.mean_response),
            maybe(s.mean_wait),
            maybe(s.wait_probability),
        ]);
    }
    let mut classes = new_table(&[
        "class",
        "kind",
        "throughput [1/s]",
        "mean response [s]",
        "±95% [s]",
        "p50 [s]",
        "p75 [s]",
        "p90 [s]",
        "p99 [s]",
        "completions",
    ]);
    let mut notes = Vec::new();
    for c in &summary.classes {
        classes.add_row(vec![
            cell(&c.name),
            c.kind.to_string(),
            fixed(c.throughput),
            maybe(c.mean_response),
            maybe(c.mean_response_ci95),
            maybe(c.response_p50),
            maybe(c.response_p75),
            maybe(c.response_p90),
            maybe(c.response_p99),
            c.completions.to_string(),
        ]);
        if let Some(note) = &c.mean_response_ci95_note {
            notes.push(format!("no ±95% interval for {}: {note}", c.name));
        }
    }
    let mut text = format!(
        "{}: seed {}, {} s simulated after a {} s warm-up, {} events{}\n\nStations\n{stations}\n\nClasses\n{classes}\n",
        summary.scenario,
        summary.seed,
        summary.sim_time - summary.warmup,
        summary.warmup,
        summary.events,
        summary.stopped_by.remark(),
    );
    text.push_str(CLASS_LEGEND);
    for note in notes {
        text.push_str(&format!("{note}\n"));
    }
    if summary.cpu.is_some() {
        text.push_str(&system_table(summary));
    }
    text
}

/// The time-sharing model's own results: where processor time went,
/// memory, paging or swapping, load, and page faults and rejections per
/// class.
fn system_table(summary: &Summary) -> String {
    let mut table = new_table(&["measure", "value"]);
    let mut row = |name: &str, value: String| {
        table.add_row(vec![name.to_string(), value]);
    };
    if let Some(cpu) = &summary.cpu {
        cpu_rows(cpu, &mut row);
    }
    if let Some(m) = &summary.memory {
        row("user memory [bytes]", m.user_bytes.to_string());
        row(
            "mean memory occupancy (fraction of user memory)",
            fixed(m.mean_occupancy),
        );
        row(
            "mean multiprogramming level",
            fixed(m.mean_multiprogramming),
        );
        row("mean waiting for memory", fixed(m.mean_waiting_for_memory));
    }
    if let Some(p) = &summary.paging {
        paging_rows(p, &mut row);
    }
    if let Some(s) = &summary.swapping {
        row("swap-ins", s.swap_ins.to_string());
        row("swap-outs", s.swap_outs.to_string());
        row("mean image swapped [bytes]", fixed(s.mean_image_bytes));
    }
    if let Some(l) = &summary.load {
        row("mean users logged in", fixed(l.mean_users));
        row("mean user processes", fixed(l.mean_processes));
        row("logins refused", l.logins_refused.to_string());
    }
    if let Some(p) = &summary.probe {
        row("probe: benchmark runs", p.observations.to_string());
        row("probe: share of processor capacity", fixed(p.cpu_share));
        row("probe: share of device requests", fixed(p.io_share));
        row("probe: mean share of user memory", fixed(p.memory_share));
    }
    if let Some(f) = &summary.files {
        row(
            "buffer cache: buffers x block [bytes]",
            format!("{} x {}", f.buffers, f.block_bytes),
        );
    }
    let mut per_class = new_table(&["class", "kind", "faults per command", "rejected"]);
    for c in &summary.classes {
        per_class.add_row(vec![
            c.name.clone(),
            c.kind.to_string(),
            c.faults_per_command.map_or_else(|| "-".to_string(), fixed),
            c.rejected
                .map_or_else(|| "-".to_string(), |r| r.to_string()),
        ]);
    }
    let mut text = format!("\nSystem\n{table}\n\nCommands\n{per_class}\n");
    if let Some(f) = &summary.files {
        text.push_str(&format!("\nBuffer cache\n{}\n", cache_table(f)));
    }
    text
}

/// The rows of the system table on where processor time went.
fn cpu_rows(cpu: &CpuSplit, row: &mut impl FnMut(&str, String)) {
    row("processors", cpu.cpus.to_string());
    row("cpu: user work", fixed(cpu.user));
    row("cpu: fault handling", fixed(cpu.fault_handling));
    row("cpu: context switching", fixed(cpu.context_switch));
    row("cpu: device interrupts", fixed(cpu.interrupts));
    row("cpu: segment faults", fixed(cpu.segment_faults));
    if let Some(copies) = cpu.buffer_copies {
        row("cpu: copying blocks out of the buffer cache", fixed(copies));
    }
    if let Some(clears) = cpu.page_clears {
        row("cpu: clearing new images' empty pages", fixed(clears));
    }
    row("cpu: idle", fixed(cpu.idle));
    row(
        "cpu: idle, a process held back by eligibility or memory (MP idle)",
        fixed(cpu.multiprogramming_idle),
    );
    row(
        "cpu: idle, light load: no process held back",
        fixed(cpu.other_idle),
    );
    row(
        "user work, of the time not idle for light load",
        fixed(cpu.useful_of_non_idle),
    );
    if let (Some(mips), Some(delivered)) = (cpu.mips, cpu.delivered_mips) {
        row("processor speed [MIPS]", fixed(mips));
        row(
            "delivered capacity: speed x user work of time not idle x processors [MIPS]",
            fixed(delivered),
        );
    }
}

/// The rows of the system table on paging.
fn paging_rows(p: &PagingSummary, row: &mut impl FnMut(&str, String)) {
    row("page faults", p.faults.to_string());
    row("page faults [1/s]", fixed(p.faults_per_second));
    row(
        "Tav, processor time per fault [s]",
        Fixed(p.tav, 6).to_string(),
    );
    row(
        "elapsed time per fault, fault to ready again [s]",
        fixed(p.mean_fault_elapsed),
    );
    row("reclaims (no I/O)", p.reclaims.to_string());
    row("zero-filled pages (no I/O)", p.zero_fills.to_string());
    row("page reads from bulk store", p.bulk_store_reads.to_string());
    row("page reads from disk", p.disk_reads.to_string());
    row(
        "f, fraction of page reads from disk",
        fixed(p.disk_fraction),
    );
    row("page writes", p.page_writes.to_string());
    row("pages stolen", p.pages_stolen.to_string());
    if let Some(k) = p.klustered_pages {
        row("pages klustered with a faulted page", k.to_string());
    }
}

/// The buffer cache's reads and writes, one row per kind of file and
/// device.
fn cache_table(files: &FilesSummary) -> String {
    let mut table = new_table(&[
        "files",
        "device",
        "reads",
        "hits",
        "in transit",
        "misses",
        "read ahead",
        "writes",
        "hit ratio",
    ]);
    for t in &files.traffic {
        table.add_row(vec![
            t.kind.clone(),
            t.device.clone(),
            t.reads.to_string(),
            t.hits.to_string(),
            t.in_transit.to_string(),
            t.misses.to_string(),
            t.read_aheads.to_string(),
            t.writes.to_string(),
            fixed(t.hit_ratio),
        ]);
    }
    table.to_string()
}

/// The page-fault time decomposition: the readings, every pair's solution
/// with its condition, and the least-squares fit with its residuals; times
/// in milliseconds.
pub fn fault_times_table(d: &Decomposition) -> String {
    let ms = |x: f64| Fixed(x * 1000.0, 3).to_string();
    let mut pairs = new_table(&["pair", "td [ms]", "tb [ms]", "condition", "note"]);
    if let Some(note) = pairs.column_mut(4) {
        note.set_cell_alignment(CellAlignment::Left);
    }
    for p in &d.pairs {
        let note = match (p.condition, p.ill_conditioned) {
            (None, _) => "no solution: both at the same f".to_string(),
            (Some(_), true) => format!(
                "ill-conditioned: 0.01 ms of error in a Tav moves td by up to {} ms",
                Fixed(p.td_per_tav_error.unwrap_or(0.0) * 0.01, 2)
            ),
            (Some(_), false) => String::new(),
        };
        pairs.add_row(vec![
            cell(&format!("{} + {}", p.first, p.second)),
            p.td.map_or_else(|| "-".to_string(), ms),
            p.tb.map_or_else(|| "-".to_string(), ms),
            p.condition
                .map_or_else(|| "-".to_string(), |c| Fixed(c, 1).to_string()),
            note,
        ]);
    }
    let fit = &d.least_squares;
    let mut readings = new_table(&[
        "reading",
        "Tav [ms]",
        "f",
        "fitted Tav [ms]",
        "residual [ms]",
    ]);
    for (r, residual) in d.readings.iter().zip(&fit.residuals) {
        readings.add_row(vec![
            cell(&r.name),
            ms(r.tav),
            fixed(r.f),
            ms(r.tav - residual),
            ms(*residual),
        ]);
    }
    format!(
        "Page-fault time from {} readings: f*td + (1-f)*tb = Tav\n\nEvery pair\n{pairs}\n\n\
         Least squares over all: td = {} ms, tb = {} ms (rms residual {} ms)\n{readings}\n\n\
         A pair is ill-conditioned when its condition number exceeds {}: an error in the readings\n\
         grows more than that many times in td and tb.\n",
        d.readings.len(),
        ms(fit.td),
        ms(fit.tb),
        ms(fit.rms_residual),
        crate::algebra::ILL_CONDITIONED
    )
}

/// Delivered capacity per installation and its ratio to the first's.
pub fn capacity_table(installations: &[Installation]) -> String {
    let mut table = new_table(&[
        "installation",
        "speed [MIPS]",
        "useful",
        "processors",
        "delivered [MIPS]",
        "ratio to the first",
    ]);
    let first = installations.first().map_or(1.0, Installation::delivered);
    for i in installations {
        table.add_row(vec![
            cell(&i.name),
            fixed(i.mips),
            fixed(i.useful),
            i.processors.to_string(),
            fixed(i.delivered()),
            fixed(i.delivered() / first),
        ]);
    }
    format!(
        "Delivered capacity: speed x fraction of processor time in useful work x processors\n\n{table}\n"
    )
}

/// The report's tables (2) to (4) for a breakdown and its attribution.
pub fn attribution_table(b: &Breakdown, f: f64, td: f64, tb: f64, a: &Attribution) -> String {
    let pct = |x: f64| format!("{}%", Fixed(x * 100.0, 1));
    let mut given = new_table(&["part of processor time", "share"]);
    let names = [
        "page-fault handling",
        "getwork",
        "interrupts",
        "segment faults",
        "MP idle",
        "other idle",
        "useful",
    ];
    let parts = [
        b.page_faults,
        b.getwork,
        b.interrupts,
        b.segment_faults,
        b.mp_idle,
        b.other_idle,
        b.useful,
    ];
    for (name, x) in names.iter().zip(parts) {
        given.add_row(vec![name.to_string(), pct(x)]);
    }
    let mut faults = new_table(&["page-fault handling", "share"]);
    faults.add_row(vec![
        "disk: f x td/Tav".to_string(),
        pct(a.disk_page_faults),
    ]);
    faults.add_row(vec![
        "bulk store: (1-f) x tb/Tav".to_string(),
        pct(a.bulk_page_faults),
    ]);
    let mut shares = new_table(&["", "of total time", "of time not idle"]);
    shares.add_row(vec![
        "bulk store paging".to_string(),
        pct(a.bulk_paging),
        pct(a.bulk_paging_of_busy),
    ]);
    shares.add_row(vec![
        "disk paging".to_string(),
        pct(a.disk_paging),
        pct(a.disk_paging_of_busy),
    ]);
    shares.add_row(vec!["idle".to_string(), pct(a.idle), String::new()]);
    shares.add_row(vec![
        "useful".to_string(),
        pct(a.useful),
        pct(a.useful_of_busy),
    ]);
    let mut projected = new_table(&["bulk store replaced by memory", "of time not idle"]);
    projected.add_row(vec![
        "disk paging".to_string(),
        pct(a.projected_disk_paging_of_busy),
    ]);
    projected.add_row(vec!["useful".to_string(), pct(a.projected_useful_of_busy)]);
    format!(
        "Attribution at f = {}, td = {} ms, tb = {} ms (Tav = f*td + (1-f)*tb = {} ms)\n\n\
         The breakdown (1)\n{given}\n\nPage-fault time by device (2)\n{faults}\n\n\
         Getwork, interrupts and MP idle to disk paging, segment faults to the bulk store (3)\n{shares}\n\n\
         The bulk store's share spread over useful work and disk paging in proportion (4)\n{projected}\n\n\
         Useful work would rise by {} of itself.\n",
        Fixed(f, 4),
        Fixed(td * 1000.0, 3),
        Fixed(tb * 1000.0, 3),
        Fixed((f * td + (1.0 - f) * tb) * 1000.0, 3),
        pct(a.projected_gain),
    )
}

/// Exact MVA of a closed network for populations 1 to N: throughput,
/// response time, and each centre's utilisation and queue length, followed
/// by the model's caveats, if any.
pub fn mva_table(model: &ClosedModel, points: &[MvaPoint]) -> String {
    let mut header = vec![
        "N".to_string(),
        "throughput [1/s]".into(),
        "response [s]".into(),
    ];
    for c in &model.centers {
        header.push(format!("U {}", c.name));
        header.push(format!("Q {}", c.name));
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = new_table(&header);
    for p in points {
        let mut row = vec![
            p.population.to_string(),
            fixed(p.throughput),
            fixed(p.response),
        ];
        for (u, q) in p.utilization.iter().zip(&p.queue_length) {
            row.push(fixed(*u));
            row.push(fixed(*q));
        }
        table.add_row(row);
    }
    let demands: Vec<String> = model
        .centers
        .iter()
        .map(|c| format!("{} {} s", c.name, Fixed(c.demand, 4)))
        .collect();
    let mut text = format!(
        "Exact MVA: think time {} s, demands per interaction: {}\n\n{table}\n",
        model.think,
        demands.join(", ")
    );
    for caveat in &model.caveats {
        text.push_str(&format!(
            "note: {caveat}; MVA's answer is an approximation\n"
        ));
    }
    text
}

/// Whether a spreadsheet would take `field` as a formula: it begins
/// (after any quotes marking it as text) with `=`, `+`, `-`, `@`, a tab or
/// a carriage return, and is not a number.
fn formula_like(field: &str) -> bool {
    field
        .trim_start_matches('\'')
        .starts_with(['=', '+', '-', '@', '\t', '\r'])
        && field.parse::<f64>().is_err()
}

/// A field for a CSV file that a spreadsheet shows as text rather than
/// running as a formula (OWASP's "CSV injection"): a name such as
/// `=HYPERLINK(...)` or `-2+3` gets a leading `'`, which spreadsheets
/// take as "text follows". Numbers (`-1.5`, `1e-9`) are left as they
/// are. [`from_csv_cell`] reads it back. docs/outputs.md states the rule.
pub fn csv_cell(field: String) -> String {
    if formula_like(&field) {
        format!("'{field}")
    } else {
        field
    }
}

/// A field as [`csv_cell`] wrote it, read back: the `'` it put in front
/// of a formula-like field taken off.
pub fn from_csv_cell(field: &str) -> &str {
    match field.strip_prefix('\'') {
        Some(rest) if formula_like(rest) => rest,
        _ => field,
    }
}

/// Every field of a record through [`csv_cell`].
pub(crate) fn csv_record(fields: impl IntoIterator<Item = String>) -> Vec<String> {
    fields.into_iter().map(csv_cell).collect()
}

fn to_csv<R: rows::Row>(rows: &[R]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(R::HEADER)
        .expect("writing to memory cannot fail");
    for row in rows {
        writer
            .write_record(csv_record(row.fields()))
            .expect("writing to memory cannot fail");
    }
    String::from_utf8(writer.into_inner().expect("flushing memory cannot fail"))
        .expect("CSV of UTF-8 fields is UTF-8")
}

/// The per-station results as CSV, one row per station.
pub fn stations_csv(summary: &Summary) -> String {
    to_csv(&summary.stations)
}

/// The per-class results as CSV, one row per class.
pub fn classes_csv(summary: &Summary) -> String {
    to_csv(&summary.classes)
}

/// The time series of the load indices as CSV, one row per sample.
pub fn load_csv(samples: &[LoadSample]) -> String {
    to_csv(samples)
}

/// The measured lifetime function as CSV: per class and resident set size,
/// the processor time run and faults taken at that size, and their ratio,
/// the mean processor time between faults (empty without a fault).
pub fn lifetime_csv(points: &[LifetimePoint]) -> String {
    to_csv(points)
}

/// The set-size distributions: per class and number of pages, how many
/// load samples found a process in the multiprogramming set holding that
/// many pages resident, and with that working-set estimate (Multics).
pub fn set_sizes_csv(points: &[SetSizePoint]) -> String {
    to_csv(points)
}

/// The analysis per load level: a table per benchmark, with the rules it
/// was made by.
pub fn analysis_table(rows: &[LevelRow], options: &Options) -> String {
    let grouping = match options.grouping {
        Grouping::Levels => "each level on its own".to_string(),
        Grouping::Cluster { min } => {
            format!("neighbouring levels merged to at least {min} observations")
        }
        Grouping::Window { half_width } => {
            format!("level i from levels i-{half_width} to i+{half_width}")
        }
    };
    let mut text = format!(
        "Elapsed time [s] by {}: {grouping}; p75 interval at {}% (order statistics); needed: observations still needed for a p75 interval within {}%\n",
        options.index.name(),
        Figure(options.level * 100.0),
        Figure(options.precision * 100.0)
    );
    let mut benchmarks: Vec<&str> = Vec::new();
    for r in rows {
        if !benchmarks.contains(&r.benchmark.as_str()) {
            benchmarks.push(&r.benchmark);
        }
    }
    for benchmark in benchmarks {
        let mut table = new_table(&[
            options.index.name(),
            "n",
            "median",
            "mean",
            "p75",
            "p75 interval",
            "p90",
            "needed",
        ]);
        for r in rows.iter().filter(|r| r.benchmark == benchmark) {
            table.add_row(vec![
                level(r.level),
                r.count.to_string(),
                fixed(r.median),
                fixed(r.mean),
                fixed(r.p75),
                r.p75_interval.map_or_else(|| "-".to_string(), interval),
                fixed(r.p90),
                r.needed.map_or_else(|| "-".to_string(), |n| n.to_string()),
            ]);
        }
        text.push_str(&format!("\n{benchmark}\n{table}\n"));
    }
    text
}

/// Two installations side by side: per benchmark and level, each one's
/// 75th percentile, the difference and its interval, `*` where it is
/// significant.
pub fn comparison_table(
    names: (&str, &str),
    method: Method,
    rows: &[ComparisonRow],
    curves: &[CurveTest],
    options: &Options,
) -> String {
    let (a, b) = names;
    let (test, difference) = match method {
        Method::Replications => (
            "Student t over paired replications",
            format!(
                "difference: the mean over the replications of each one's p75 {a} less p75 {b} (the p75 columns pool all replications, so it need not be their difference)"
            ),
        ),
        Method::Bootstrap => (
            "percentile bootstrap over the observations",
            format!("difference: p75 {a} less p75 {b}"),
        ),
    };
    let mut text = format!(
        "75th percentile of elapsed time [s] by {}: {a} against {b}; {difference}; its interval at {}% ({test}); * where the interval leaves out 0\n",
        options.index.name(),
        Figure(options.level * 100.0)
    );
    let mut benchmarks: Vec<&str> = rows.iter().map(|r| r.benchmark.as_str()).collect();
    benchmarks.dedup();
    for benchmark in benchmarks {
        let mut table = new_table(&[
            options.index.name(),
            &format!("n {a}"),
            &format!("p75 {a}"),
            &format!("n {b}"),
            &format!("p75 {b}"),
            "difference",
            "interval",
            "",
        ]);
        for r in rows.iter().filter(|r| r.benchmark == benchmark) {
            let dash = || "-".to_string();
            table.add_row(vec![
                level(r.level),
                r.a_count.to_string(),
                r.a_p75.map_or_else(dash, fixed),
                r.b_count.to_string(),
                r.b_p75.map_or_else(dash, fixed),
                r.difference.map_or_else(dash, fixed),
                r.interval.map_or_else(dash, interval),
                if r.significant { "*" } else { "" }.to_string(),
            ]);
        }
        text.push_str(&format!("\n{benchmark}\n{table}\n"));
        if let Some(c) = curves.iter().find(|c| c.benchmark == benchmark) {
            text.push_str(&format!(
                "whole curve, over the {} every replication observed: mean difference {}, its interval {}{}, p = {}; {} of {} levels significant, {} expected by chance\n",
                count(c.levels, "level", "levels"),
                fixed(c.difference),
                interval(c.interval),
                if c.interval.0 > 0.0 || c.interval.1 < 0.0 { " *" } else { "" },
                significant(c.p_value),
                c.significant_levels,
                c.tested_levels,
                Figure(c.expected_by_chance)
            ));
        }
    }
    text
}

/// The comparison as CSV, one row per benchmark and level.
pub fn comparison_csv(rows: &[ComparisonRow]) -> String {
    to_csv(rows)
}

/// The analysis per load level as CSV, one row per benchmark and level.
pub fn analysis_csv(rows: &[LevelRow]) -> String {
    to_csv(rows)
}

/// The terminal probe's observations as CSV, one row per benchmark run:
/// the table `tpsim analyze` reads.
pub fn probe_csv(observations: &[Observation]) -> String {
    to_csv(observations)
}

/// The header line of the probe.csv `tpsim probe` writes.
pub fn host_probe_header() -> String {
    to_csv::<HostObservation>(&[])
}

/// One row of the probe.csv `tpsim probe` writes, its line ended.
pub fn host_probe_row(row: &HostObservation) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(csv_record(rows::Row::fields(row)))
        .expect("writing to memory cannot fail");
    String::from_utf8(writer.into_inner().expect("flushing memory cannot fail"))
        .expect("CSV of UTF-8 fields is UTF-8")
}

/// A number for a CSV file: Debug formatting prints the shortest text that
/// reads back as the same f64, so the file loses nothing.
pub(crate) fn num(x: f64) -> String {
    format!("{x:?}")
}

/// The CSV shape of each kind of row: column names and fields in order.
mod rows {
    use crate::host::HostObservation;
    use tpsim_models::summary::{ClassSummary, StationSummary};
    use tpsim_models::system::{LifetimePoint, LoadSample, Observation, SetSizePoint};

    pub trait Row {
        const HEADER: &'static [&'static str];
        fn fields(&self) -> Vec<String>;
    }

    pub(crate) use super::num;

    /// A measure that may be missing: an empty field.
    fn maybe(x: Option<f64>) -> String {
        x.map_or_else(String::new, num)
    }

    impl Row for LifetimePoint {
        const HEADER: &'static [&'static str] = &[
            "class",
            "resident_pages",
            "cpu_s",
            "faults",
            "mean_time_between_faults_s",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.class.clone(),
                self.resident_pages.to_string(),
                num(self.cpu_seconds),
                self.faults.to_string(),
                maybe((self.faults > 0).then(|| self.cpu_seconds / self.faults as f64)),
            ]
        }
    }

    impl Row for SetSizePoint {
        const HEADER: &'static [&'static str] =
            &["class", "pages", "resident_samples", "working_set_samples"];
        fn fields(&self) -> Vec<String> {
            vec![
                self.class.clone(),
                self.pages.to_string(),
                self.resident_samples.to_string(),
                self.working_set_samples.to_string(),
            ]
        }
    }

    impl Row for StationSummary {
        const HEADER: &'static [&'static str] = &[
            "station",
            "discipline",
            "servers",
            "utilization",
            "throughput_per_s",
            "mean_number_present",
            "response_per_visit_s",
            "wait_per_visit_s",
            "wait_probability",
            "completions",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.name.clone(),
                self.discipline.to_string(),
                self.servers.to_string(),
                num(self.utilization),
                num(self.throughput),
                num(self.mean_queue_length),
                maybe(self.mean_response),
                maybe(self.mean_wait),
                maybe(self.wait_probability),
                self.completions.to_string(),
            ]
        }
    }

    impl Row for ClassSummary {
        const HEADER: &'static [&'static str] = &[
            "class",
            "kind",
            "throughput_per_s",
            "mean_response_s",
            "mean_response_ci95_s",
            "mean_response_ci95_low_s",
            "mean_response_ci95_high_s",
            "mean_response_ci95_note",
            "response_p50_s",
            "response_p75_s",
            "response_p90_s",
            "response_p99_s",
            "response_min_s",
            "response_max_s",
            "completions",
            "rejected",
            "faults_per_command",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.name.clone(),
                self.kind.to_string(),
                num(self.throughput),
                maybe(self.mean_response),
                maybe(self.mean_response_ci95),
                maybe(self.mean_response_ci95_low),
                maybe(self.mean_response_ci95_high),
                self.mean_response_ci95_note.clone().unwrap_or_default(),
                maybe(self.response_p50),
                maybe(self.response_p75),
                maybe(self.response_p90),
                maybe(self.response_p99),
                maybe(self.response_min),
                maybe(self.response_max),
                self.completions.to_string(),
                self.rejected.map_or_else(String::new, |r| r.to_string()),
                self.faults_per_command.map_or_else(String::new, num),
            ]
        }
    }

    impl Row for LoadSample {
        const HEADER: &'static [&'static str] = &[
            "time_s",
            "phase",
            "users",
            "processes",
            "multiprogramming",
            "runnable",
            "memory_occupancy",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                num(self.time),
                if self.warmup { "warmup" } else { "measured" }.to_string(),
                self.users.to_string(),
                self.processes.to_string(),
                self.multiprogramming.to_string(),
                self.runnable.to_string(),
                num(self.memory_occupancy),
            ]
        }
    }

    impl Row for crate::compare::ComparisonRow {
        const HEADER: &'static [&'static str] = &[
            "benchmark",
            "level",
            "a_count",
            "a_p75_s",
            "b_count",
            "b_p75_s",
            "difference_s",
            "difference_low_s",
            "difference_high_s",
            "significant",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.benchmark.clone(),
                num(self.level),
                self.a_count.to_string(),
                maybe(self.a_p75),
                self.b_count.to_string(),
                maybe(self.b_p75),
                maybe(self.difference),
                maybe(self.interval.map(|i| i.0)),
                maybe(self.interval.map(|i| i.1)),
                self.significant.to_string(),
            ]
        }
    }

    impl Row for crate::analysis::LevelRow {
        const HEADER: &'static [&'static str] = &[
            "benchmark",
            "level",
            "count",
            "median_s",
            "mean_s",
            "p75_s",
            "p75_low_s",
            "p75_high_s",
            "p90_s",
            "needed",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.benchmark.clone(),
                num(self.level),
                self.count.to_string(),
                num(self.median),
                num(self.mean),
                num(self.p75),
                maybe(self.p75_interval.map(|i| i.0)),
                maybe(self.p75_interval.map(|i| i.1)),
                num(self.p90),
                self.needed.map_or_else(String::new, |n| n.to_string()),
            ]
        }
    }

    /// The simulated probe's columns, which `tpsim analyze` reads: a
    /// measured table starts with them too.
    const OBSERVATION: [&str; 11] = [
        "benchmark",
        "start_s",
        "phase",
        "users",
        "processes",
        "runnable",
        "free_memory_bytes",
        "elapsed_s",
        "user_s",
        "system_s",
        "ramp_workers",
    ];

    /// `a` then `b`, in a constant.
    const fn concat<const A: usize, const B: usize, const N: usize>(
        a: [&'static str; A],
        b: [&'static str; B],
    ) -> [&'static str; N] {
        assert!(A + B == N, "the lengths add up");
        let mut out = [""; N];
        let mut i = 0;
        while i < A {
            out[i] = a[i];
            i += 1;
        }
        while i < N {
            out[i] = b[i - A];
            i += 1;
        }
        out
    }

    const HOST: [&str; 16] = concat(
        OBSERVATION,
        [
            "status",
            "load_1min",
            "load_5min",
            "load_15min",
            "users_from",
        ],
    );

    impl Row for HostObservation {
        const HEADER: &'static [&'static str] = &HOST;
        fn fields(&self) -> Vec<String> {
            // The simulated probe's fields first, as an observation taken
            // outside any warm-up.
            let mut fields = Observation {
                benchmark: self.benchmark.clone(),
                start: self.start,
                warmup: false,
                users: self.users,
                processes: self.processes,
                runnable: self.runnable,
                free_memory: self.free_memory,
                elapsed: self.elapsed,
                user: self.user,
                system: self.system,
                ramp_workers: self.workers,
            }
            .fields();
            // Times at the resolution their clocks give, not as the
            // nearest binary fraction prints (1.504674899, not
            // 1.5046748989999998).
            for (column, t, places) in [
                ("start_s", self.start, HostObservation::START_DECIMALS),
                ("elapsed_s", self.elapsed, self.elapsed_decimals()),
                ("user_s", self.user, self.cpu_decimals()),
                ("system_s", self.system, self.cpu_decimals()),
            ] {
                let at = OBSERVATION
                    .iter()
                    .position(|&name| name == column)
                    .expect("a column of the simulated probe's");
                fields[at] = format!("{t:.places$}");
            }
            fields.extend([
                self.outcome.to_string(),
                num(self.load[0]),
                num(self.load[1]),
                num(self.load[2]),
                self.users_from.to_string(),
            ]);
            fields
        }
    }

    impl Row for Observation {
        const HEADER: &'static [&'static str] = &OBSERVATION;
        fn fields(&self) -> Vec<String> {
            vec![
                self.benchmark.clone(),
                num(self.start),
                if self.warmup { "warmup" } else { "measured" }.to_string(),
                self.users.to_string(),
                self.processes.to_string(),
                self.runnable.to_string(),
                self.free_memory.to_string(),
                num(self.elapsed),
                num(self.user),
                num(self.system),
                self.ramp_workers.to_string(),
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_like_fields_are_quoted_and_read_back() {
        for (field, written) in [
            ("=SUM(A1:A9)", "'=SUM(A1:A9)"),
            ("+cmd", "'+cmd"),
            ("-2+3", "'-2+3"),
            ("@foo", "'@foo"),
            ("\tx", "'\tx"),
            ("'=x", "''=x"),
            ("-1.5", "-1.5"),
            ("1e-9", "1e-9"),
            ("+3", "+3"),
            ("edit", "edit"),
            ("'quoted", "'quoted"),
            ("", ""),
        ] {
            let cell = csv_cell(field.to_string());
            assert_eq!(cell, written, "{field:?}");
            assert_eq!(from_csv_cell(&cell), field, "{field:?}");
        }
    }
}
