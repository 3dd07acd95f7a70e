//! Tables and CSV files from a run's summary.

use comfy_table::{CellAlignment, Table, presets};
use tpsim_models::Summary;
use tpsim_models::analytic::{ClosedModel, MvaPoint};

fn fixed(x: f64) -> String {
    format!("{x:.4}")
}

fn new_table(header: &[&str]) -> Table {
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
        "mean queue length",
        "mean response [s]",
    ]);
    for s in &summary.stations {
        stations.add_row(vec![
            s.name.clone(),
            s.discipline.clone(),
            s.servers.to_string(),
            fixed(s.utilization),
            fixed(s.throughput),
            fixed(s.mean_queue_length),
            fixed(s.mean_response),
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
    for c in &summary.classes {
        classes.add_row(vec![
            c.name.clone(),
            c.kind.clone(),
            fixed(c.throughput),
            fixed(c.mean_response),
            c.mean_response_ci95.map_or_else(|| "-".to_string(), fixed),
            fixed(c.response_p50),
            fixed(c.response_p75),
            fixed(c.response_p90),
            fixed(c.response_p99),
            c.completions.to_string(),
        ]);
    }
    format!(
        "{}: seed {}, {} s simulated after a {} s warm-up, {} events\n\nStations\n{stations}\n\nClasses\n{classes}\n",
        summary.scenario,
        summary.seed,
        summary.sim_time - summary.warmup,
        summary.warmup,
        summary.events,
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
        .map(|c| format!("{} {:.4} s", c.name, c.demand))
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

fn to_csv<R: rows::Row>(rows: &[R]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(R::HEADER)
        .expect("writing to memory cannot fail");
    for row in rows {
        writer
            .write_record(row.fields())
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

/// The CSV shape of each kind of row: column names and fields in order.
mod rows {
    use tpsim_models::summary::{ClassSummary, StationSummary};

    pub trait Row {
        const HEADER: &'static [&'static str];
        fn fields(&self) -> Vec<String>;
    }

    fn num(x: f64) -> String {
        // Debug formatting prints the shortest text that reads back as the
        // same f64, so the CSV loses nothing.
        format!("{x:?}")
    }

    impl Row for StationSummary {
        const HEADER: &'static [&'static str] = &[
            "station",
            "discipline",
            "servers",
            "utilization",
            "throughput",
            "mean_queue_length",
            "mean_response",
            "completions",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.name.clone(),
                self.discipline.clone(),
                self.servers.to_string(),
                num(self.utilization),
                num(self.throughput),
                num(self.mean_queue_length),
                num(self.mean_response),
                self.completions.to_string(),
            ]
        }
    }

    impl Row for ClassSummary {
        const HEADER: &'static [&'static str] = &[
            "class",
            "kind",
            "throughput",
            "mean_response",
            "mean_response_ci95",
            "response_p50",
            "response_p75",
            "response_p90",
            "response_p99",
            "response_max",
            "completions",
        ];
        fn fields(&self) -> Vec<String> {
            vec![
                self.name.clone(),
                self.kind.clone(),
                num(self.throughput),
                num(self.mean_response),
                self.mean_response_ci95.map_or_else(String::new, num),
                num(self.response_p50),
                num(self.response_p75),
                num(self.response_p90),
                num(self.response_p99),
                num(self.response_max),
                self.completions.to_string(),
            ]
        }
    }
}
