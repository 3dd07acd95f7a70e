//! The report page: one or more output sets (a run's, a batch's or a
//! sweep's, an analysis's, a comparison's) as one HTML file a person opens
//! in a browser or prints.
//!
//! A set is a folder of CSV, JSON and chart files, right for tools and
//! hard for a reader, who would open a dozen files to piece together what
//! belongs to what. The page puts them in one place: what was run, as far
//! as the set records it (and says what it does not record rather than
//! guess), the notes the terminal showed, every table of the set as an
//! HTML table with its numbers as the files hold them, and every chart
//! inline as the SVG the set holds, so the page shows the same data drawn
//! the same way. Sets of one kind given together are laid side by side,
//! and batches given together are also put in one table, a column each.
//!
//! The page is self-contained: its style is in the page, it has no script,
//! and it asks for no font, image or stylesheet from anywhere, so it reads
//! the same offline and years later. A print stylesheet starts each set on
//! a new page, keeps rows and charts whole, and wraps wide tables to the
//! paper rather than cutting them.
//!
//! The HTML comes from one template, `templates/report.html`, compiled in
//! by askama: the template is checked against the types here when the
//! crate builds, and everything it prints is escaped for HTML unless it
//! says otherwise. The one exception is a chart's SVG, which is checked
//! first ([`PageError::NotAChart`]): tpsim's charts are drawn by plotters,
//! which escapes their text, and have no script or link.
//!
//! This module reads no file: the caller hands it each set's files (the
//! CLI reads them from a directory whose manifest they match, or has them
//! in hand as a command writes them).

use crate::report::{
    event_limit_note, from_csv_cell, interrupted_note, nothing_completed, rejected_note,
    stalled_note,
};
use askama::Template;
use serde_json::Value;
use tpsim_models::units::Figure;

/// The most rows of one table shown on the page; the rest are in the file.
pub const MAX_ROWS: usize = 500;

/// One output set: its files, and what is known of how it was made.
#[derive(Clone, Debug, Default)]
pub struct Set {
    /// How the set is named on the page: its directory, as the user gave it.
    pub name: String,
    /// The set's files, name and contents. Files the page does not show
    /// (PNG copies of the charts, an earlier page) may be among them.
    pub files: Vec<(String, Vec<u8>)>,
    /// What the files themselves do not record.
    pub origin: Origin,
}

/// What is known of how a set was made beyond its files: everything is
/// known when the command that writes the set writes the page too, less
/// when the page is made later from the files.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The command line.
    pub command: Option<String>,
    /// The scenario files it read: each one's path and text.
    pub scenarios: Vec<(String, String)>,
    /// The tpsim that wrote the set ("tpsim 0.1.0").
    pub version: Option<String>,
    /// When the set was written, as a person reads it.
    pub written: Option<String>,
    /// Where `written` comes from, if not from the command itself (such as
    /// "the modification time of its manifest").
    pub written_from: Option<String>,
}

/// Why a set cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The set has none of the files that say what it is.
    #[error(
        "{set}: not an output set of run, batch, sweep, merge, analyze or compare: it has none of summary.json, batch.json, analysis.csv and comparison.csv"
    )]
    Unknown {
        /// The set's name.
        set: String,
    },
    /// A shard's record, which is not a result until it is merged.
    #[error(
        "{set}: a shard's record (shard.json), not a batch's results: `tpsim merge` the shards with --out, and report the merged set"
    )]
    Shard {
        /// The set's name.
        set: String,
    },
    /// A file that cannot be read as what its name says.
    #[error("{set}/{file}: {why}")]
    BadFile {
        /// The set's name.
        set: String,
        /// The file's name.
        file: String,
        /// What is wrong with it.
        why: String,
    },
    /// An SVG file that is not a chart as tpsim draws them.
    #[error(
        "{set}/{file}: not a chart as tpsim draws them ({why}); it is left out of pages, which run nothing"
    )]
    NotAChart {
        /// The set's name.
        set: String,
        /// The file's name.
        file: String,
        /// What it has that a chart does not.
        why: String,
    },
    /// The template failed to render.
    #[error("cannot make the report page: {0}")]
    Render(String),
}

/// The page, with `generator` ("tpsim 0.1.0") and `made` (when) in its
/// heading.
pub fn render(sets: &[Set], generator: &str, made: &str) -> Result<String, PageError> {
    let mut groups: Vec<Group> = Vec::new();
    let mut batches: Vec<Vec<(&str, Value)>> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        let view = SetView::of(set, i + 1)?;
        let batch = match view.kind {
            Kind::Batch => Some((set.name.as_str(), json_file(set, "batch.json")?)),
            _ => None,
        };
        match groups.last_mut() {
            Some(group) if group.sets[0].kind == view.kind => group.sets.push(view),
            _ => {
                groups.push(Group {
                    sets: vec![view],
                    together: None,
                });
                batches.push(Vec::new());
            }
        }
        batches.last_mut().expect("a group").extend(batch);
    }
    for (number, (group, batches)) in groups.iter_mut().zip(&batches).enumerate() {
        group.together = batches_table(batches, &format!("group{}", number + 1));
    }
    let title = match sets {
        [one] => format!("tpsim report: {}", one.name),
        _ => format!("tpsim report: {} output sets", sets.len()),
    };
    Page {
        title,
        generator: generator.to_string(),
        made: made.to_string(),
        groups,
    }
    .render()
    .map_err(|e| PageError::Render(e.to_string()))
}

/// The page as the template sees it.
#[derive(Template)]
#[template(path = "report.html")]
struct Page {
    title: String,
    generator: String,
    made: String,
    /// The sets, those of one kind given one after another together.
    groups: Vec<Group>,
}

/// Sets laid side by side.
struct Group {
    sets: Vec<SetView>,
    /// Their figures in one table where they have the same measures: a
    /// column per batch of two or more batches given together.
    together: Option<TableView>,
}

/// What a set is, by the files that say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Run,
    Batch,
    Sweep,
    Analysis,
    Comparison,
}

impl Kind {
    fn of(set: &Set) -> Result<Kind, PageError> {
        let has = |name: &str| set.files.iter().any(|(n, _)| n == name);
        if has("summary.json") {
            Ok(Kind::Run)
        } else if has("batch.json") {
            let json = json_file(set, "batch.json")?;
            let swept = json["keys"].as_array().is_some_and(|k| !k.is_empty());
            Ok(if swept { Kind::Sweep } else { Kind::Batch })
        } else if has("analysis.csv") {
            Ok(Kind::Analysis)
        } else if has("comparison.csv") {
            Ok(Kind::Comparison)
        } else if has("shard.json") {
            Err(PageError::Shard {
                set: set.name.clone(),
            })
        } else {
            Err(PageError::Unknown {
                set: set.name.clone(),
            })
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Run => "a run",
            Kind::Batch => "a batch of replications",
            Kind::Sweep => "a sweep",
            Kind::Analysis => "an analysis of probe observations",
            Kind::Comparison => "a comparison of two installations",
        }
    }

    /// What a set of this kind does not record of how it was made.
    fn unrecorded(self) -> &'static str {
        match self {
            Kind::Run => "the options it was given beyond the seed",
            Kind::Batch | Kind::Sweep => "the options it was given beyond those in batch.json",
            Kind::Analysis => {
                "the observation table it read, the grouping and the confidence level it was given"
            }
            Kind::Comparison => {
                "the two installations it compared (their names are in the charts' legends), the method of its intervals, the grouping and the confidence level it was given, the seed"
            }
        }
    }
}

/// One set on the page.
struct SetView {
    /// The anchor of its section.
    id: String,
    name: String,
    kind: Kind,
    /// What it is, as a phrase ("a sweep").
    what: &'static str,
    /// What was run, as recorded: (what, value).
    facts: Vec<(String, String)>,
    /// What it does not record, said in the page.
    unrecorded: Vec<String>,
    command: Option<String>,
    scenarios: Vec<ScenarioText>,
    notes: Vec<Note>,
    tables: Vec<TableView>,
    charts: Vec<ChartView>,
}

struct ScenarioText {
    path: String,
    text: String,
}

/// A note or a warning the terminal showed.
struct Note {
    warning: bool,
    text: String,
}

/// A table of the set.
struct TableView {
    id: String,
    title: String,
    /// The file it comes from.
    file: String,
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
    /// Said under it when not every row is shown.
    cut: Option<String>,
    /// Turned on its side: a row per column of the file, a column per row.
    turned: bool,
    /// A small table of fields, set beside its neighbours.
    compact: bool,
    /// On paper, a table too wide for it is printed as several, each with
    /// the columns that name a row and a share of the others: their
    /// columns, by place. None for a table that fits.
    print: Vec<Vec<usize>>,
    /// Whether each column holds numbers only (and so is set right, its
    /// heading too).
    numbers: Vec<bool>,
}

/// The most columns a table is printed with; a wider one is printed as
/// several.
const PRINT_COLUMNS: usize = 12;

impl TableView {
    /// Whether column `i` holds numbers only (dashes aside).
    fn numeric(&self, i: &usize) -> bool {
        self.numbers.get(*i).copied().unwrap_or(false)
    }

    /// Notes which columns hold numbers only, and cuts a table too wide
    /// for paper: what the template needs once the cells are final.
    fn settle(&mut self) {
        self.numbers = (0..self.header.len())
            .map(|i| {
                let mut cells = self
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .filter(|c| c.text != "-")
                    .peekable();
                cells.peek().is_some() && cells.all(|c| c.number && !c.head)
            })
            .collect();
        self.cut_for_print();
    }

    /// The heading of column `i`.
    fn heading(&self, i: &usize) -> &str {
        self.header.get(*i).map_or("", String::as_str)
    }

    /// The cell of `row` in column `i`, if it has one.
    fn cell<'a>(&self, row: &'a [Cell], i: &usize) -> Option<&'a Cell> {
        row.get(*i)
    }

    /// Cuts a table too wide for paper into parts of at most
    /// [`PRINT_COLUMNS`] columns, each beginning with the columns that name
    /// a row: those up to the last text column among the first five (a
    /// sweep's keys, the replication and what stopped it; a benchmark and
    /// its phase), or else the first.
    fn cut_for_print(&mut self) {
        let width = self.header.len();
        if width <= PRINT_COLUMNS {
            return;
        }
        let lead = (0..width.min(5))
            .rfind(|i| !self.numeric(i))
            .map_or(1, |i| i + 1);
        let share = PRINT_COLUMNS.saturating_sub(lead).max(1);
        self.print = (lead..width)
            .step_by(share)
            .map(|start| (0..lead).chain(start..(start + share).min(width)).collect())
            .collect();
    }

    /// A table of the file `file`'s `header` and `rows`, with `id` and
    /// `title`.
    fn new(
        id: String,
        title: &str,
        file: &str,
        header: Vec<String>,
        rows: Vec<Vec<Cell>>,
    ) -> TableView {
        TableView {
            id,
            title: title.to_string(),
            file: file.to_string(),
            header,
            rows,
            cut: None,
            turned: false,
            compact: false,
            print: Vec::new(),
            numbers: Vec::new(),
        }
    }

    /// The table turned on its side if it is much wider than it is long
    /// (a run's classes: a few rows of twenty columns), so that it fits
    /// the page.
    fn fitted(mut self) -> TableView {
        if self.header.len() > TURN_COLUMNS && self.rows.len() < self.header.len() / 2 {
            let (header, rows) = turn(
                std::mem::take(&mut self.header),
                std::mem::take(&mut self.rows),
            );
            self.header = header;
            self.rows = rows;
            self.turned = true;
        }
        self
    }
}

/// The most columns a table is shown with as its file has them; a wider
/// one with fewer rows than half its columns is turned on its side.
const TURN_COLUMNS: usize = 8;

/// A table turned on its side: the first column's cells become the
/// header, and each other column a row headed by its name.
fn turn(header: Vec<String>, rows: Vec<Vec<Cell>>) -> (Vec<String>, Vec<Vec<Cell>>) {
    let mut columns: Vec<Vec<Cell>> = header.into_iter().map(|h| vec![Cell::head(h)]).collect();
    for row in rows {
        for (column, cell) in columns.iter_mut().zip(row) {
            column.push(cell);
        }
    }
    let mut columns = columns.into_iter();
    let first = columns.next().unwrap_or_default();
    let header = first
        .into_iter()
        .map(|c| c.exact.unwrap_or(c.text))
        .collect();
    (header, columns.collect())
}

/// A cell; numbers are set right.
struct Cell {
    /// As shown: a number with a fraction to six significant digits.
    text: String,
    /// The file's text, where `text` rounds it (the cell's tooltip).
    exact: Option<String>,
    number: bool,
    /// A row's heading (the first column of a table turned on its side).
    head: bool,
    /// A second line under the text: an estimate's interval.
    under: Option<String>,
}

impl Cell {
    fn new(text: String) -> Cell {
        // Nothing measured: a dash, as on the terminal.
        let text = if text.is_empty() {
            "-".to_string()
        } else {
            text
        };
        let value = text.parse::<f64>().ok().filter(|_| !text.is_empty());
        // Whole numbers (counts, seeds, levels) as they are; fractions as
        // a person reads them, the file's digits kept for the tooltip.
        let shown = value
            .filter(|_| text.contains(['.', 'e', 'E']))
            .map(|x| Figure(x).to_string())
            .filter(|shown| *shown != text);
        match shown {
            Some(shown) => Cell {
                text: shown,
                exact: Some(text),
                number: true,
                head: false,
                under: None,
            },
            None => Cell {
                text,
                exact: None,
                number: value.is_some(),
                head: false,
                under: None,
            },
        }
    }

    fn head(text: String) -> Cell {
        Cell {
            head: true,
            ..Cell::new(text)
        }
    }
}

/// A chart of the set, its SVG as the file holds it.
struct ChartView {
    id: String,
    file: String,
    svg: String,
}

/// The order in which the known tables of a set come, each with its title.
const TABLES: [(&str, &str); 11] = [
    ("stations.csv", "Stations"),
    ("classes.csv", "Classes"),
    ("estimates.csv", "Estimates"),
    ("knees.csv", "Knees of the throughput curves"),
    ("analysis.csv", "Elapsed time per benchmark and load level"),
    (
        "comparison.csv",
        "75th percentiles compared per benchmark and load level",
    ),
    ("set_sizes.csv", "Resident and working-set sizes"),
    ("lifetime.csv", "Measured lifetime function"),
    ("load.csv", "Load indices over time"),
    ("probe.csv", "Terminal probe observations"),
    ("replications.csv", "Every replication"),
];

impl SetView {
    fn of(set: &Set, number: usize) -> Result<SetView, PageError> {
        let kind = Kind::of(set)?;
        let id = format!("set{number}");
        let mut facts = Vec::new();
        let mut notes = Vec::new();
        let mut tables = Vec::new();
        // The summary's sections, after the tables of stations and classes.
        let mut late = Vec::new();
        match kind {
            Kind::Run => {
                let summary = json_file(set, "summary.json")?;
                run_facts(&summary, &mut facts);
                notes = run_notes(&summary);
                late = summary_tables(&summary, &id);
            }
            Kind::Batch | Kind::Sweep => {
                let batch = json_file(set, "batch.json")?;
                batch_facts(&batch, &mut facts);
                notes = batch_notes(&batch);
                tables.push(points_table(&batch, &id));
                if kind == Kind::Sweep {
                    tables.push(steps_table(&batch, &id));
                }
            }
            Kind::Analysis => probe_facts(set, "analysis.csv", &mut facts)?,
            Kind::Comparison => probe_facts(set, "comparison.csv", &mut facts)?,
        }
        let origin = &set.origin;
        let unrecorded = provenance(origin, kind, &mut facts);
        let mut csv: Vec<&(String, Vec<u8>)> = set
            .files
            .iter()
            .filter(|(name, _)| name.ends_with(".csv"))
            .collect();
        csv.sort_by_key(|(name, _)| {
            let known = TABLES.iter().position(|(n, _)| n == name);
            (known.unwrap_or(TABLES.len()), name.clone())
        });
        for (name, bytes) in csv {
            let title = TABLES
                .iter()
                .find(|(n, _)| n == name)
                .map_or(name.as_str(), |(_, t)| t);
            let id = format!("{id}-{}", anchor(name));
            tables.push(csv_table(&set.name, name, bytes, title, id)?);
            if name == "classes.csv" {
                tables.append(&mut late);
            }
        }
        tables.append(&mut late);
        for table in &mut tables {
            table.settle();
        }
        let mut charts = Vec::new();
        let mut svgs: Vec<&(String, Vec<u8>)> = set
            .files
            .iter()
            .filter(|(name, _)| name.ends_with(".svg"))
            .collect();
        svgs.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, bytes) in svgs {
            charts.push(ChartView {
                id: format!("{id}-{}", anchor(name)),
                file: name.clone(),
                svg: chart(&set.name, name, bytes)?,
            });
        }
        Ok(SetView {
            id,
            name: set.name.clone(),
            kind,
            what: kind.noun(),
            facts,
            unrecorded,
            command: origin.command.clone(),
            scenarios: origin
                .scenarios
                .iter()
                .map(|(path, text)| ScenarioText {
                    path: path.clone(),
                    text: text.clone(),
                })
                .collect(),
            notes,
            tables,
            charts,
        })
    }
}

/// What the set's origin says of who wrote it and when, added to
/// `facts`; what it does not record, for a set of `kind`.
fn provenance(origin: &Origin, kind: Kind, facts: &mut Vec<(String, String)>) -> Vec<String> {
    let mut unrecorded = Vec::new();
    if origin.command.is_none() {
        unrecorded.push("the command line".to_string());
    }
    if origin.scenarios.is_empty() && matches!(kind, Kind::Run | Kind::Batch | Kind::Sweep) {
        unrecorded.push("the scenario's text".to_string());
    }
    if origin.version.is_none() {
        unrecorded.push("the version of tpsim that wrote it".to_string());
    }
    if origin.command.is_none() {
        unrecorded.push(kind.unrecorded().to_string());
    }
    if let Some(version) = &origin.version {
        facts.push(("written by".into(), version.clone()));
    }
    match (&origin.written, &origin.written_from) {
        (Some(when), Some(from)) => facts.push(("written".into(), format!("{when} ({from})"))),
        (Some(when), None) => facts.push(("written".into(), when.clone())),
        _ => unrecorded.push("when it was written".to_string()),
    }
    unrecorded
}

/// A file's name as part of an anchor: letters and digits kept, anything
/// else `-`.
fn anchor(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The file `name` of `set` read as JSON.
fn json_file(set: &Set, name: &str) -> Result<Value, PageError> {
    let bad = |why: String| PageError::BadFile {
        set: set.name.clone(),
        file: name.to_string(),
        why,
    };
    let (_, bytes) = set
        .files
        .iter()
        .find(|(n, _)| n == name)
        .ok_or_else(|| bad("missing".into()))?;
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| bad(format!("not the JSON tpsim writes: {e}")))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(bad("not the JSON tpsim writes: not an object".into()))
    }
}

/// A JSON value as a cell: a number or string as it is, null as a dash.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a run's summary records of how it was run.
fn run_facts(summary: &Value, facts: &mut Vec<(String, String)>) {
    let seconds = |key: &str| summary[key].as_f64().map(|s| format!("{} s", Figure(s)));
    let mut fact = |what: &str, value: Option<String>| {
        if let Some(value) = value {
            facts.push((what.to_string(), value));
        }
    };
    fact("scenario", summary["scenario"].as_str().map(String::from));
    fact("seed", summary["seed"].as_u64().map(|s| s.to_string()));
    fact(
        "replication",
        summary["replication"].as_u64().map(|r| r.to_string()),
    );
    fact("simulated time", seconds("sim_time"));
    fact("warm-up", seconds("warmup"));
    fact("events", summary["events"].as_u64().map(|e| e.to_string()));
    fact("wall-clock time", seconds("wall_seconds"));
    fact(
        "stopped by",
        summary["stopped_by"]
            .as_str()
            .map(|s| match summary["stalled_on"].as_str() {
                Some(event) => format!("{s} (the last event: {event})"),
                None => s.to_string(),
            }),
    );
}

/// What an analysis's or a comparison's files tell of it: the benchmarks
/// in its table `file`, and the load index its charts are drawn against
/// (`BENCHMARK-by-INDEX.svg`, `BENCHMARK-p75-by-INDEX.svg`).
fn probe_facts(set: &Set, file: &str, facts: &mut Vec<(String, String)>) -> Result<(), PageError> {
    let Some((_, bytes)) = set.files.iter().find(|(n, _)| n == file) else {
        return Ok(());
    };
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let mut benchmarks: Vec<String> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| PageError::BadFile {
            set: set.name.clone(),
            file: file.to_string(),
            why: format!("not a CSV table: {e}"),
        })?;
        let benchmark = from_csv_cell(record.get(0).unwrap_or_default()).to_string();
        if !benchmarks.contains(&benchmark) {
            benchmarks.push(benchmark);
        }
    }
    facts.push(("benchmarks".into(), benchmarks.join(", ")));
    let indices: Vec<&str> = set
        .files
        .iter()
        .filter_map(|(n, _)| n.strip_suffix(".svg")?.rsplit_once("-by-").map(|(_, i)| i))
        .collect();
    if let Some(index) = indices.first().filter(|i| indices.iter().all(|j| j == *i)) {
        facts.push(("load index".into(), index.to_string()));
    }
    Ok(())
}

/// The notes and warnings the terminal shows after a run.
fn run_notes(summary: &Value) -> Vec<Note> {
    let mut notes = Vec::new();
    let empty = Vec::new();
    let classes = summary["classes"].as_array().unwrap_or(&empty);
    let stations = summary["stations"].as_array().unwrap_or(&empty);
    for c in classes {
        if let Some(rejected) = c["rejected"].as_u64().filter(|&r| r > 0) {
            notes.push(Note {
                warning: false,
                text: rejected_note(
                    rejected,
                    c["kind"] == "background",
                    c["name"].as_str().unwrap_or("?"),
                ),
            });
        }
    }
    let sim_time = summary["sim_time"].as_f64().unwrap_or(0.0);
    match summary["stopped_by"].as_str() {
        Some("end_time") => {
            let classes: Vec<(bool, u64)> = classes
                .iter()
                .map(|c| {
                    (
                        c["kind"] == "background",
                        c["completions"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            let stations: Vec<(&str, f64)> = stations
                .iter()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap_or("?"),
                        s["utilization"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect();
            let idle = summary["cpu"]["idle"].as_f64();
            let observations = summary["probe"]["observations"].as_u64().unwrap_or(0);
            if let Some(text) = nothing_completed(&classes, &stations, idle, observations, sim_time)
            {
                notes.push(Note {
                    warning: false,
                    text,
                });
            }
        }
        Some("interrupted") => notes.push(Note {
            warning: true,
            text: interrupted_note(sim_time),
        }),
        // Whether it stopped before the end of its warm-up is not
        // recorded (the summary's warm-up is 0 then, as it is for a run
        // without one).
        Some("event_limit") => notes.push(Note {
            warning: false,
            text: event_limit_note(sim_time, false),
        }),
        Some("stalled") => notes.push(Note {
            warning: true,
            text: stalled_note(sim_time, summary["stalled_on"].as_str().unwrap_or("?")),
        }),
        _ => {}
    }
    notes
}

/// The sections of a summary beyond its stations and classes (which are
/// the CSV tables): a time-sharing system's processor, paging, swapping,
/// memory, load and probe figures, each a table of its fields.
fn summary_tables(summary: &Value, id: &str) -> Vec<TableView> {
    let Some(fields) = summary.as_object() else {
        return Vec::new();
    };
    fields
        .iter()
        .filter(|(_, v)| v.is_object())
        .map(|(key, value)| {
            let mut rows = Vec::new();
            flatten("", value, &mut rows);
            let mut table = TableView::new(
                format!("{id}-summary-{}", anchor(key)),
                &format!("Summary: {key}"),
                "summary.json",
                vec!["field".into(), "value".into()],
                rows.into_iter()
                    .map(|(k, v)| vec![Cell::head(k), Cell::new(v)])
                    .collect(),
            );
            table.compact = true;
            table
        })
        .collect()
}

/// Every scalar of `value` with its path below `prefix`: fields joined by
/// `.`, elements of arrays by their `name` if they have one, else their
/// place.
fn flatten(prefix: &str, value: &Value, rows: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        }
    };
    match value {
        Value::Object(fields) => {
            for (key, value) in fields {
                flatten(&join(key), value, rows);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let at = item["name"]
                    .as_str()
                    .map_or_else(|| i.to_string(), String::from);
                flatten(&format!("{prefix}[{at}]"), item, rows);
            }
        }
        scalar => rows.push((prefix.to_string(), shown(scalar))),
    }
}

/// What a batch's or a sweep's batch.json records of how it was run.
fn batch_facts(batch: &Value, facts: &mut Vec<(String, String)>) {
    let mut fact = |what: &str, value: &Value| {
        if !value.is_null() {
            facts.push((what.to_string(), shown(value)));
        }
    };
    fact("scenario", &batch["scenario"]);
    fact("seed", &batch["seed"]);
    fact("replications", &batch["rule"]);
    fact("confidence level", &batch["level"]);
    if let Some(keys) = batch["keys"].as_array().filter(|k| !k.is_empty()) {
        let keys: Vec<String> = keys.iter().map(shown).collect();
        fact("swept keys", &Value::String(keys.join(", ")));
    }
    fact("charts drawn against", &batch["axis"]);
}

/// The notes a batch's terminal output ends with.
fn batch_notes(batch: &Value) -> Vec<Note> {
    let mut notes = Vec::new();
    if batch["partial"] == true {
        notes.push(Note {
            warning: true,
            text: "interrupted: the replications that finished are reported, marked partial".into(),
        });
    }
    notes
}

/// A batch's points: each one's values, replications, what stopped it and
/// its warm-up, from batch.json.
fn points_table(batch: &Value, id: &str) -> TableView {
    let keys: Vec<String> = batch["keys"]
        .as_array()
        .map(|k| k.iter().map(shown).collect())
        .unwrap_or_default();
    let mut header = keys.clone();
    header.extend(["replications", "stopped by", "warm-up [s]"].map(String::from));
    let empty = Vec::new();
    let rows = batch["points"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|p| {
            let mut row: Vec<Cell> = p["values"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|v| Cell::new(shown(v)))
                .collect();
            row.extend(
                [&p["replications"], &p["stopped_by"], &p["warmup"]].map(|v| Cell::new(shown(v))),
            );
            row
        })
        .collect();
    TableView::new(format!("{id}-points"), "Points", "batch.json", header, rows).fitted()
}

/// A sweep's steps side by side: a column per point, a row per measure,
/// each cell the mean and the half-width of its interval; and where the
/// model has them, MVA's exact throughput and response beside them.
fn steps_table(batch: &Value, id: &str) -> TableView {
    let empty = Vec::new();
    let keys: Vec<String> = batch["keys"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(shown)
        .collect();
    let points: Vec<(String, &Value)> = batch["points"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|p| {
            let values: Vec<String> = p["values"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(shown)
                .collect();
            (values.join(", "), p)
        })
        .collect();
    let mut table = points_side_by_side(&format!("measure / {}", keys.join(", ")), &points);
    table.id = format!("{id}-steps");
    table.title = format!("The points side by side: mean{} interval", level(batch));
    table
}

/// Batches given together side by side, `batches` each with its set's
/// name: a column per batch, a row per measure, as a sweep's points
/// are; none unless there are two or more, each of one point.
fn batches_table(batches: &[(&str, Value)], id: &str) -> Option<TableView> {
    let points: Vec<(String, &Value)> = batches
        .iter()
        .map(|(name, batch)| match batch["points"].as_array() {
            Some(one) if one.len() == 1 => Some((name.to_string(), &one[0])),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if points.len() < 2 {
        return None;
    }
    let mut table = points_side_by_side("measure / set", &points);
    table.id = format!("{id}-together");
    table.title = format!(
        "The batches side by side: mean{} interval",
        level(&batches[0].1)
    );
    table.settle();
    Some(table)
}

/// The confidence level of a batch's intervals, as the title of a table
/// of them says it (" ± 95%").
fn level(batch: &Value) -> String {
    batch["level"]
        .as_f64()
        .map_or_else(String::new, |l| format!(" ± {}%", Figure(l * 100.0)))
}

/// Points of batches side by side, each `(heading, point)` a column, a
/// row per measure under the heading `first`: each cell the mean and the
/// half-width of its interval; and where the model has them, MVA's exact
/// throughput and response beneath.
fn points_side_by_side(first: &str, points: &[(String, &Value)]) -> TableView {
    let empty = Vec::new();
    let mut header = vec![first.to_string()];
    header.extend(points.iter().map(|(heading, _)| heading.clone()));
    let mut measures: Vec<&str> = Vec::new();
    for e in points
        .iter()
        .flat_map(|(_, p)| p["estimates"].as_array().unwrap_or(&empty))
    {
        if let Some(m) = e["measure"].as_str().filter(|m| !measures.contains(m)) {
            measures.push(m);
        }
    }
    let estimate = |p: &Value, measure: &str| {
        let e = p["estimates"]
            .as_array()
            .and_then(|es| es.iter().find(|e| e["measure"] == measure));
        let mut cell = Cell::new(
            e.and_then(|e| e["mean"].as_f64())
                .map_or_else(|| "-".into(), |mean| Figure(mean).to_string()),
        );
        cell.number = true;
        cell.under = e
            .and_then(|e| e["half_width"].as_f64())
            .map(|h| format!("± {}", Figure(h)));
        cell
    };
    let mut rows: Vec<Vec<Cell>> = measures
        .iter()
        .map(|m| {
            let mut row = vec![Cell::head(m.to_string())];
            row.extend(points.iter().map(|(_, p)| estimate(p, m)));
            row
        })
        .collect();
    for (field, name) in [
        ("throughput", "MVA: throughput"),
        ("response", "MVA: mean response"),
    ] {
        if points
            .iter()
            .any(|(_, p)| p["reference"][field].is_number())
        {
            let mut row = vec![Cell::head(name.to_string())];
            row.extend(points.iter().map(|(_, p)| {
                let mut cell = Cell::new(
                    p["reference"][field]
                        .as_f64()
                        .map_or_else(|| "-".into(), |x| Figure(x).to_string()),
                );
                cell.number = true;
                cell
            }));
            rows.push(row);
        }
    }
    TableView::new(String::new(), "", "batch.json", header, rows)
}

/// A CSV file of the set as a table, at most [`MAX_ROWS`] of its rows.
fn csv_table(
    set: &str,
    file: &str,
    bytes: &[u8],
    title: &str,
    id: String,
) -> Result<TableView, PageError> {
    let bad = |e: csv::Error| PageError::BadFile {
        set: set.to_string(),
        file: file.to_string(),
        why: format!("not a CSV table: {e}"),
    };
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(bad)?
        .iter()
        .map(String::from)
        .collect();
    let mut rows = Vec::new();
    let mut total = 0;
    for record in reader.records() {
        let record = record.map_err(bad)?;
        total += 1;
        if rows.len() < MAX_ROWS {
            rows.push(
                record
                    .iter()
                    .map(|field| Cell::new(from_csv_cell(field).to_string()))
                    .collect(),
            );
        }
    }
    let mut table = TableView::new(id, title, file, header, rows).fitted();
    table.cut = (total > MAX_ROWS)
        .then(|| format!("The first {MAX_ROWS} of its {total} rows; {file} holds them all."));
    Ok(table)
}

/// The elements a chart may have to be shown inline: what tpsim's charts
/// draw with, and nothing that runs, fetches, links or styles.
const IN_A_CHART: [&str; 14] = [
    "svg", "g", "rect", "line", "polyline", "polygon", "path", "circle", "ellipse", "text",
    "tspan", "title", "desc", "defs",
];

/// A chart file's SVG, checked to be a drawing and nothing more: only the
/// elements of [`IN_A_CHART`], no event handler, no reference to anything
/// outside (`href`, `url(`, `@import`, `javascript:`).
fn chart(set: &str, file: &str, bytes: &[u8]) -> Result<String, PageError> {
    let refuse = |why: String| PageError::NotAChart {
        set: set.to_string(),
        file: file.to_string(),
        why,
    };
    let text = std::str::from_utf8(bytes).map_err(|_| refuse("not UTF-8 text".into()))?;
    let svg = text.trim_start();
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest
            .split_once("?>")
            .map_or("", |(_, svg)| svg.trim_start()),
        None => svg,
    };
    if !svg.starts_with("<svg") {
        return Err(refuse("it does not begin with <svg".into()));
    }
    let lower = svg.to_ascii_lowercase();
    for tag in lower.split('<').skip(1) {
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
            .collect();
        if !IN_A_CHART.contains(&name.as_str()) {
            return Err(refuse(format!(
                "it has <{name}>, which a chart does not draw with"
            )));
        }
    }
    if let Some(found) = ["href", "javascript:", "url(", "@import"]
        .iter()
        .find(|s| lower.contains(*s))
    {
        return Err(refuse(format!("it has {found}")));
    }
    // An event handler: `onload=` after a space, a slash or a quote.
    let words = lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '=' || c == '-'));
    if words
        .into_iter()
        .any(|word| word.starts_with("on") && word.contains('='))
    {
        return Err(refuse("it has an event handler".into()));
    }
    Ok(svg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page of one set named `out` with `files`.
    fn page_of(files: &[(&str, &str)]) -> Result<String, PageError> {
        let set = Set {
            name: "out".into(),
            files: files
                .iter()
                .map(|(n, c)| (n.to_string(), c.as_bytes().to_vec()))
                .collect(),
            origin: Origin::default(),
        };
        render(&[set], "tpsim", "now")
    }

    /// Checks that `page` has `text`.
    fn assert_shows(page: &str, text: &str) {
        assert!(page.contains(text), "{text:?} is not in {page}");
    }

    #[test]
    fn a_set_without_the_files_that_say_what_it_is_is_refused() {
        let e = page_of(&[("notes.csv", "a\n1\n")]).unwrap_err();
        assert!(matches!(e, PageError::Unknown { .. }), "{e}");
        assert!(e.to_string().starts_with("out: not an output set"), "{e}");
        let e = page_of(&[("shard.json", "{}")]).unwrap_err();
        assert!(e.to_string().contains("tpsim merge"), "{e}");
    }

    #[test]
    fn a_bad_table_is_named_with_its_set() {
        let e = page_of(&[("analysis.csv", "a,b\n1,2,3\n")]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("out/analysis.csv: not a CSV table"),
            "{e}"
        );
        let e = page_of(&[("summary.json", "[1]")]).unwrap_err();
        assert!(
            e.to_string().starts_with("out/summary.json: not the JSON"),
            "{e}"
        );
    }

    #[test]
    fn a_chart_that_would_run_or_fetch_something_is_refused() {
        for bad in [
            "<svg><script>alert(1)</script></svg>",
            "<svg><image href=\"http://x/y.png\"/></svg>",
            "<svg onload=\"alert(1)\"></svg>",
            "<svg><rect/onload=\"alert(1)\"/></svg>",
            "<svg><style>@import \"http://x/y.css\";</style></svg>",
            "<svg><img/src=x/onerror=alert(1)></svg>",
            "<p>not svg</p>",
        ] {
            let e = page_of(&[("analysis.csv", "a\n1\n"), ("x.svg", bad)]).unwrap_err();
            assert!(matches!(e, PageError::NotAChart { .. }), "{bad}: {e}");
        }
        let page = page_of(&[
            ("analysis.csv", "a\n1\n"),
            (
                "x.svg",
                "<?xml version=\"1.0\"?>\n<svg width=\"9\"><text>a &amp; b</text></svg>",
            ),
        ])
        .unwrap();
        assert_shows(&page, "<svg width=\"9\"><text>a &amp; b</text></svg>");
        assert!(!page.contains("<?xml"));
    }

    #[test]
    fn a_run_s_notes_are_the_terminal_s() {
        let summary = r#"{"scenario": "s", "seed": 1, "sim_time": 12.5, "warmup": 0,
            "stopped_by": "interrupted",
            "classes": [{"name": "big", "kind": "command", "rejected": 3, "completions": 0}],
            "stations": []}"#;
        let page = page_of(&[("summary.json", summary)]).unwrap();
        assert_shows(&page, &rejected_note(3, false, "big"));
        assert_shows(&page, &interrupted_note(12.5));
        let idle = summary
            .replace("interrupted", "end_time")
            .replace("\"rejected\": 3", "\"rejected\": 0");
        let page = page_of(&[("summary.json", &idle)]).unwrap();
        assert_shows(&page, "the run completed no job after its warm-up");
        assert!(!page.contains("could not run"));
    }

    #[test]
    fn batches_given_together_share_a_table_and_other_kinds_do_not() {
        let batch = |mean: f64| {
            let json = format!(
                r#"{{"keys": [], "level": 0.95, "points": [{{"values": [], "estimates":
                [{{"measure": "classes.jobs.mean_response", "mean": {mean}, "half_width": 0.25}}]}}]}}"#
            );
            vec![("batch.json".to_string(), json.into_bytes())]
        };
        let set = |name: &str, files| Set {
            name: name.into(),
            files,
            origin: Origin::default(),
        };
        let a = set("a", batch(4.5));
        let b = set("b", batch(5.125));
        let page = render(&[a.clone(), b], "tpsim", "now").unwrap();
        assert_shows(&page, "The batches side by side: mean ± 95% interval");
        assert_shows(&page, "href=\"#group1-together\"");
        for cell in [">4.5<span class=\"under\">± 0.25</span>", ">5.125<"] {
            assert_shows(&page, cell);
        }
        let run = set("r", vec![("summary.json".to_string(), b"{}".to_vec())]);
        let page = render(&[a, run], "tpsim", "now").unwrap();
        assert!(!page.contains("side by side: mean"), "{page}");
    }

    #[test]
    fn long_tables_are_cut_and_say_so() {
        let mut text = String::from("time_s\n");
        for i in 0..MAX_ROWS + 2 {
            text.push_str(&format!("{i}\n"));
        }
        let page = page_of(&[("analysis.csv", &text)]).unwrap();
        assert!(page.contains(&format!(
            "The first {MAX_ROWS} of its {} rows",
            MAX_ROWS + 2
        )));
        assert!(page.contains(&format!(">{}<", MAX_ROWS - 1)));
        assert!(!page.contains(&format!(">{}<", MAX_ROWS)));
    }

    #[test]
    fn a_formula_guard_is_taken_off_and_the_text_escaped() {
        let page = page_of(&[("analysis.csv", "benchmark,level\n'=a<b&c,1\n")]).unwrap();
        assert!(
            page.contains("=a&#60;b&#38;c") || page.contains("=a&lt;b&amp;c"),
            "{page}"
        );
    }
}
