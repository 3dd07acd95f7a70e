//! The report page: `tpsim report DIR... --out FILE` and `--html` on the
//! commands that write an output set. Each test makes a short set, makes
//! its page, and reads the page as a checker would: self-contained, every
//! table of the set with its numbers, one inline chart per chart file,
//! the user's text escaped; and in a real browser, as a reader sees it
//! (`browser`).

// In a folder of its own, so that cargo does not build it as a test of
// its own.
#[path = "report/browser.rs"]
mod browser;

use std::path::{Path, PathBuf};

struct Output {
    status: i32,
    stdout: String,
    stderr: String,
}

fn tpsim(args: &[&str]) -> Output {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let argv = std::iter::once("tpsim").chain(args.iter().copied());
    let status = tpsim_cli::run(argv, &mut stdout, &mut stderr);
    Output {
        status,
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.toml"))
}

/// A shipped scenario with its name and end time replaced, written into
/// `dir`.
fn scenario(dir: &Path, shipped: &str, name: &str, end_time: &str) -> String {
    let text = std::fs::read_to_string(scenario_path(shipped)).unwrap();
    let mut named = false;
    let text: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("end_time") {
                format!("end_time = \"{end_time}\"")
            } else if line.starts_with("name = ") && !named {
                // The first name is the scenario's, before any table.
                named = true;
                format!("name = {}", toml_string(name))
            } else {
                line.to_string()
            }
        })
        .collect();
    let path = dir.join(format!("{shipped}.toml"));
    std::fs::write(&path, text.join("\n")).unwrap();
    path.display().to_string()
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A scenario name with what HTML must escape.
const TRICKY: &str = "mm1 <b>&amp; \"q\"";

/// `text` as askama escapes it for HTML.
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The names the manifest of the set in `dir` lists.
fn listed(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join(".tpsim-files"))
        .unwrap()
        .lines()
        .map(|l| l.split_once("  ").unwrap().1.to_string())
        .collect()
}

/// Checks that `html` loads nothing from anywhere: no script, no
/// stylesheet, font or image by address, every link within the page.
fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for banned in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "@import",
        "@font-face",
        "url(",
        " src=",
    ] {
        assert!(!lower.contains(banned), "the page has {banned}");
    }
    for (i, _) in lower.match_indices("href=") {
        let target = &lower[i + 5..];
        assert!(
            target.starts_with("\"#"),
            "a link out of the page: {}",
            &html[i..(i + 80).min(html.len())]
        );
    }
    assert!(
        !lower.contains("http://") || lower.matches("http://").count() == svg_namespaces(&lower)
    );
    assert!(
        !lower.contains("https://"),
        "the page names an https address"
    );
}

/// How many `http://` addresses the page's SVG namespaces account for.
fn svg_namespaces(lower: &str) -> usize {
    lower
        .matches("xmlns=\"http://www.w3.org/2000/svg\"")
        .count()
        + lower
            .matches("xmlns:xlink=\"http://www.w3.org/1999/xlink\"")
            .count()
}

/// Checks that every table of the set in `dir` is on the page `html`,
/// each header and each cell (up to the page's limit of rows), and that
/// there is one inline SVG per chart file.
fn assert_whole_set(dir: &Path, html: &str) {
    // Headings may break after `_` and `.`.
    let html = &html.replace("<wbr>", "");
    let names = listed(dir);
    let mut tables = 0;
    for name in names.iter().filter(|n| n.ends_with(".csv")) {
        tables += 1;
        assert!(
            html.contains(&format!("<span class=\"file\">{name}</span>")),
            "{name} has no table"
        );
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        for column in reader.headers().unwrap() {
            assert!(headed(html, column), "{name}: no column {column}");
        }
        for record in reader.records().take(tpsim_probe::page::MAX_ROWS) {
            for field in record.unwrap().iter() {
                let field = tpsim_probe::report::from_csv_cell(field);
                assert!(holds(html, field), "{name}: no cell {field:?}");
            }
        }
    }
    assert!(tables > 0, "no tables in {names:?}");
    let charts = names.iter().filter(|n| n.ends_with(".svg")).count();
    assert_eq!(html.matches("<svg").count(), charts, "{names:?}");
    for chart in names.iter().filter(|n| n.ends_with(".svg")) {
        assert!(html.contains(&format!("<figcaption>{chart}</figcaption>")));
    }
}

/// Whether `text` heads a column, or a row of a table turned on its side.
fn headed(html: &str, text: &str) -> bool {
    let text = escaped(text);
    ["col\"", "col\" class=\"n\"", "row\""]
        .iter()
        .any(|scope| html.contains(&format!("<th scope=\"{scope}>{text}</th>")))
}

/// Whether a table of `html` holds the field `text` of a file: as a cell,
/// as the tooltip of a cell that rounds it, or as a heading.
fn holds(html: &str, text: &str) -> bool {
    // An empty field is shown as a dash.
    let shown = if text.is_empty() {
        "-".to_string()
    } else {
        escaped(text)
    };
    html.contains(&format!(">{shown}</td>"))
        || html.contains(&format!(" title=\"{shown}\">"))
        || headed(html, text)
}

/// Runs `tpsim args`, which must succeed.
fn ok(args: &[&str]) -> Output {
    let got = tpsim(args);
    assert_eq!(got.status, 0, "{args:?}: {}", got.stderr);
    got
}

/// Checks `page` as the page of the set in `dir`: self-contained and
/// whole.
fn assert_page_of(dir: &Path, page: &str) {
    assert_self_contained(page);
    assert_whole_set(dir, page);
}

/// The page `--html` wrote into the set in `dir`, checked.
fn own_page(dir: &Path) -> String {
    assert!(listed(dir).contains(&"report.html".to_string()));
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert_page_of(dir, &page);
    page
}

/// The page `tpsim report` makes of the sets `dirs` into `out`; checked
/// when there is one set.
fn page_of(dirs: &[&Path], out: &Path) -> String {
    let mut args = vec!["report"];
    args.extend(dirs.iter().map(|d| s(d)));
    args.extend(["--out", s(out)]);
    let made = ok(&args);
    assert!(
        made.stdout.contains("the report page of"),
        "{}",
        made.stdout
    );
    let page = std::fs::read_to_string(out).unwrap();
    if let [dir] = dirs {
        assert_page_of(dir, &page);
    }
    page
}

#[test]
fn a_run_s_page_has_its_tables_its_command_and_its_scenario_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = scenario(dir.path(), "mm1", TRICKY, "3000s");
    let set = dir.path().join("run");
    ok(&["run", &mm1, "--seed", "3", "--out", s(&set), "--html"]);
    let own = own_page(&set);
    assert!(!own.contains(TRICKY), "the name is not escaped");
    assert!(own.contains(&escaped(TRICKY)));
    assert!(own.contains(&escaped(&format!("tpsim run {mm1} --seed 3 --out"))));
    assert!(own.contains(&escaped(&std::fs::read_to_string(&mm1).unwrap())));
    assert!(own.contains(&format!("tpsim {}", env!("CARGO_PKG_VERSION"))));
    browser::assert_reads_in_browser(&set.join("report.html"), &[&set]);

    // Made later from the files: what they do not record is said so.
    let later = page_of(&[&set], &dir.path().join("later.html"));
    assert!(!later.contains(TRICKY));
    assert!(later.contains("Not recorded in the set"), "{later}");
    assert!(later.contains("the command line"));
    assert!(later.contains("the modification time of its .tpsim-files"));
    assert!(later.contains("<dt>seed</dt><dd>3</dd>"));
}

#[test]
fn a_batch_s_and_a_sweep_s_pages_have_their_points_tables_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = scenario(dir.path(), "mm1", "mm1", "2000s");
    let batch = dir.path().join("batch");
    ok(&[
        "batch",
        &mm1,
        "--replications",
        "3",
        "--out",
        s(&batch),
        "--html",
    ]);
    let page = own_page(&batch);
    assert!(page.contains("3 replications at each point"), "{page}");

    let sweep = dir.path().join("sweep");
    let rate = "class[jobs].arrivals.exp.rate=0.3/s,0.6/s";
    ok(&[
        "sweep",
        &mm1,
        "--set",
        rate,
        "--replications",
        "2",
        "--out",
        s(&sweep),
    ]);
    let page = page_of(&[&sweep], &dir.path().join("sweep.html"));
    assert!(page.contains("a sweep"));
    assert!(headed(
        &page.replace("<wbr>", ""),
        "class[jobs].arrivals.exp.rate"
    ));

    // Two sets of one kind side by side, then a set of another kind.
    let other = dir.path().join("other");
    ok(&[
        "batch",
        &mm1,
        "--replications",
        "3",
        "--seed",
        "2",
        "--out",
        s(&other),
    ]);
    let all = [batch.as_path(), &other, &sweep];
    let both_page = dir.path().join("both.html");
    let both = page_of(&all, &both_page);
    assert_eq!(both.matches("class=\"group side-by-side\"").count(), 1);
    assert!(both.contains("The batches side by side: mean ± 95% interval"));
    assert_whole_set(&sweep, &both[both.find("id=\"set3\"").unwrap()..]);
    browser::assert_reads_in_browser(&both_page, &all);
    browser::assert_a_missing_chart_fails(&both_page, &all);
}

#[test]
fn an_analysis_s_and_a_comparison_s_pages_have_their_tables_and_every_chart() {
    let dir = tempfile::tempdir().unwrap();
    let swapped = scenario(dir.path(), "berkeley-1979-swapped", "swapped <&>", "4h");
    let paged = "berkeley-1979-paged";
    let paged = scenario(dir.path(), paged, paged, "4h");
    let run = dir.path().join("run");
    ok(&["run", &swapped, "--out", s(&run)]);
    let analysis = dir.path().join("analysis");
    let probe = run.join("probe.csv");
    let clustered = ["--cluster", "5", "--out"];
    ok(&[
        &["analyze", s(&probe)],
        &clustered[..],
        &[s(&analysis), "--html"],
    ]
    .concat());
    let page = own_page(&analysis);
    assert!(page.matches("<svg").count() >= 2, "every benchmark's chart");

    let comparison = dir.path().join("comparison");
    ok(&[
        &["compare", &swapped, &paged],
        &clustered[..],
        &[s(&comparison)],
    ]
    .concat());
    let page = page_of(&[&comparison], &dir.path().join("comparison.html"));
    assert!(
        !page.contains("swapped <&>"),
        "the chart's legend is escaped"
    );
    assert!(page.contains("<dt>load index</dt><dd>users</dd>"), "{page}");
    assert!(page.contains("<dt>benchmarks</dt><dd>man, cpu-bound, cc</dd>"));

    // The run with its probe: its time-sharing figures and every file.
    let page = page_of(&[&run], &dir.path().join("run.html"));
    assert!(page.contains("Summary: cpu"), "the summary's sections");

    // The three kinds on one page, in a browser.
    let all = dir.path().join("all.html");
    page_of(&[&run, &analysis, &comparison], &all);
    browser::assert_reads_in_browser(&all, &[&run, &analysis, &comparison]);
}

#[test]
fn what_is_not_an_output_set_is_refused_by_name_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("page.html");
    let refused = |args: &[&str]| {
        let mut all = vec!["report"];
        all.extend(args);
        all.extend(["--out", s(&out)]);
        let got = tpsim(&all);
        assert_eq!(got.status, 2, "{args:?}: {}", got.stderr);
        assert!(!out.exists(), "{args:?} wrote the page");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().contains("tpsim-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        got.stderr
    };
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("summary.json"), "{}").unwrap();
    let e = refused(&[s(&plain)]);
    let named = |e: &str, path: &Path, what: &str| {
        assert!(e.contains(&format!("{}: {what}", path.display())), "{e}");
    };
    named(&e, &plain, "not a tpsim output set");
    let file = plain.join("summary.json");
    named(&refused(&[s(&file)]), &file, "not a directory");
    let missing = dir.path().join("missing");
    let e = refused(&[s(&missing)]);
    assert!(e.contains(&missing.display().to_string()), "{e}");

    // A set changed since it was written, and a shard's record.
    let mm1 = scenario(dir.path(), "mm1", "mm1", "2000s");
    let set = dir.path().join("set");
    ok(&["run", &mm1, "--out", s(&set)]);
    std::fs::write(set.join("classes.csv"), "class\nx\n").unwrap();
    named(
        &refused(&[s(&set)]),
        &set.join("classes.csv"),
        "does not match",
    );
    let shard = dir.path().join("shard");
    ok(&["batch", &mm1, "--shard", "1/2", "--out", s(&shard)]);
    let e = refused(&[s(&shard)]);
    assert!(e.contains("a shard's record"), "{e}");

    // The page inside a set it reports would go stale there.
    let fresh = dir.path().join("fresh");
    ok(&["run", &mm1, "--out", s(&fresh)]);
    let inside = fresh.join("page.html");
    let got = tpsim(&["report", s(&fresh), "--out", s(&inside)]);
    assert_eq!(got.status, 2, "{}", got.stderr);
    assert!(
        got.stderr.contains("inside the output set"),
        "{}",
        got.stderr
    );
    assert!(!inside.exists());
    // --html needs --out.
    assert_eq!(tpsim(&["run", &mm1, "--html"]).status, 2);
}
