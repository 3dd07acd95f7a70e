//! The report page as a reader sees it: opened in headless Chromium at a
//! desktop's width and a narrow one, its DOM and a screenshot taken after
//! it has loaded.
//!
//! The browser opens a copy of the page with two additions: a
//! Content-Security-Policy that allows nothing to load but the page's own
//! style and one script, so any request the page would make (an image, a
//! font, a stylesheet, a script) is blocked and reported, not left to the
//! network to fail or not; and that script, `check.js`, which reads what
//! the browser laid out. The checks: no request and no console message;
//! every chart of the sets drawn, visible and inside its figure; every
//! table of the sets shown with its rows; sets of one kind side by side
//! at the desktop's width and one above the other at the narrow one;
//! nothing wider than the page's
//! column, but what a table's frame scrolls; a screenshot of the page's
//! size that is not one colour.
//!
//! The test needs Chromium (Debian's package `chromium`, which `.ci/run`
//! and the README's set-up install where it is missing) and fails without
//! it: a browser test that passes with no browser checks nothing.
//! `TPSIM_CHROMIUM` names another build of it, such as `chromium-browser`.
//! `TPSIM_PAGE_SHOTS=DIR` keeps the screenshots there, to be looked at,
//! each named by the page's directory and file and the width.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The widths the page is opened at [px]: a desktop's, where sets of one
/// kind stand side by side, and a narrow window's, where they do not.
const WIDTHS: [u32; 2] = [1280, 800];

/// The narrowest window [px] in which two sets of one kind stand side by
/// side: two columns of 30 rem and the gap between them fit in the
/// page's column at 1280 px, not at 800.
const TWO_COLUMNS: u32 = 1280;

/// The height of the window, and so of the screenshot [px].
const HEIGHT: u32 = 2000;

/// The longest the browser may take to open a page and write what it
/// saw: it takes a second or two; the margin is for a loaded machine.
const OPEN_LIMIT: Duration = Duration::from_secs(60);

/// The nonce that lets the check's script, and no other, run.
const NONCE: &str = "tpsim-check";

/// The fewest marks (lines, shapes, text) a chart of tpsim's has: its
/// axes, ticks and labels alone are more.
const MIN_MARKS: u64 = 20;

/// The share of a screenshot's pixels that must differ from its
/// background: a page of text and tables covers several per cent.
const MIN_INK: f64 = 0.01;

/// What the browser showed of a page at one width.
struct Shown {
    width: u32,
    /// What `check.js` read of the laid-out page.
    reading: serde_json::Value,
    /// The console messages, each as the browser logged it.
    console: Vec<String>,
    screenshot: image::RgbaImage,
}

/// The browser to run.
fn chromium() -> OsString {
    std::env::var_os("TPSIM_CHROMIUM").unwrap_or_else(|| "chromium".into())
}

/// The copy of `html` the browser opens: the policy first in its head,
/// the check's script last in its body.
fn instrumented(html: &str) -> String {
    let policy = format!(
        "<head>\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{NONCE}'\">"
    );
    let script = format!(
        "<script nonce=\"{NONCE}\">\n{}</script>\n</body>",
        include_str!("check.js")
    );
    assert!(html.matches("<head>").count() == 1 && html.matches("</body>").count() == 1);
    html.replacen("<head>", &policy, 1)
        .replacen("</body>", &script, 1)
}

/// Opens `page` in headless Chromium at `width` and returns what it
/// showed.
fn open(page: &Path, width: u32) -> Shown {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("page.html");
    std::fs::write(&copy, instrumented(&std::fs::read_to_string(page).unwrap())).unwrap();
    let shot = dir.path().join("shot.png");
    let dom = dir.path().join("dom.html");
    let log = dir.path().join("log.txt");
    let browser = chromium();
    let mut child = Command::new(&browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            // No traffic of the browser's own: its updates, sync, first run.
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Console messages on standard error.
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size={width},{HEIGHT}"))
        .arg(format!("file://{}", copy.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&dom).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e}. The report page's browser test needs Chromium: \
                 scripts/install-chromium.sh installs it on Debian (.ci/run runs it), or name the \
                 browser in TPSIM_CHROMIUM",
                browser.to_string_lossy()
            )
        });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > OPEN_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "Chromium took over {OPEN_LIMIT:?} to open {}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        child.wait().unwrap().success(),
        "Chromium failed on {}:\n{log}",
        page.display()
    );
    let dom = std::fs::read_to_string(&dom).unwrap();
    let start = "<pre id=\"tpsim-check\" hidden=\"\">";
    let json = dom
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .unwrap_or_else(|| panic!("the check did not run on {}:\n{log}", page.display()))
        .0;
    if let Some(keep) = std::env::var_os("TPSIM_PAGE_SHOTS") {
        // A temporary directory's name starts with a dot: not kept hidden.
        let name = |p: Option<&Path>| {
            p.and_then(Path::file_stem).map_or_else(String::new, |n| {
                n.to_string_lossy().trim_start_matches('.').to_string()
            })
        };
        let kept = format!("{}-{}-{width}.png", name(page.parent()), name(Some(page)));
        std::fs::copy(&shot, Path::new(&keep).join(kept)).unwrap();
    }
    Shown {
        width,
        reading: serde_json::from_str(json).unwrap(),
        console: log
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect(),
        screenshot: image::open(&shot)
            .unwrap_or_else(|e| panic!("no screenshot of {}: {e}", page.display()))
            .to_rgba8(),
    }
}

/// The names of the files `listed` names that end in `ext`, from every
/// set in `sets`.
fn files(sets: &[&Path], ext: &str) -> Vec<String> {
    sets.iter()
        .flat_map(|dir| super::listed(dir))
        .filter(|name| name.ends_with(ext))
        .collect()
}

/// What is wrong with the page `page` of the output sets `sets` as a
/// reader would see it in a browser at every width of [`WIDTHS`]; empty
/// when nothing is.
fn problems(page: &Path, sets: &[&Path]) -> Vec<String> {
    let shown: Vec<Shown> = std::thread::scope(|scope| {
        let opening: Vec<_> = WIDTHS
            .iter()
            .map(|&width| scope.spawn(move || open(page, width)))
            .collect();
        opening.into_iter().map(|o| o.join().unwrap()).collect()
    });
    shown
        .iter()
        .flat_map(|shown| {
            problems_at(shown, sets)
                .into_iter()
                .map(|p| format!("at {} px: {p}", shown.width))
        })
        .collect()
}

/// What is wrong with what the browser `shown` of the page of `sets`.
fn problems_at(shown: &Shown, sets: &[&Path]) -> Vec<String> {
    let mut found: Vec<String> = shown
        .console
        .iter()
        .map(|l| format!("console: {l}"))
        .collect();
    let reading = &shown.reading;
    let list = |key: &str| reading[key].as_array().cloned().unwrap_or_default();
    for blocked in list("blocked") {
        found.push(format!("a request leaves the page: {blocked}"));
    }
    let charts = list("charts");
    found.extend(missing("chart", &files(sets, ".svg"), &charts));
    for chart in &charts {
        let file = &chart["file"];
        if chart["drawn"] != true {
            found.push(format!("chart {file}: no drawing"));
        } else if chart["visible"] != true {
            found.push(format!("chart {file}: not visible"));
        } else if chart["inside"] != true {
            found.push(format!("chart {file}: wider than its figure"));
        } else if chart["marks"].as_u64() < Some(MIN_MARKS) {
            found.push(format!(
                "chart {file}: nearly empty, {} marks",
                chart["marks"]
            ));
        }
    }
    let tables = list("tables");
    found.extend(missing("table", &files(sets, ".csv"), &tables));
    for table in &tables {
        if table["visible"] != true || table["rows"].as_u64() == Some(0) {
            found.push(format!("table {}: not visible or empty", table["file"]));
        }
    }
    for group in list("groups") {
        let sets = group["sets"].as_u64().unwrap_or(0);
        let columns = if shown.width >= TWO_COLUMNS {
            sets.min(2)
        } else {
            1
        };
        if group["columns"].as_u64() != Some(columns) {
            found.push(format!(
                "{sets} sets of one kind in {} columns, not {columns}",
                group["columns"]
            ));
        }
    }
    for el in list("overflowing") {
        found.push(format!("outside the page's column: {el}"));
    }
    if reading["page_width"].as_f64() > reading["view_width"].as_f64() {
        found.push(format!(
            "the page is {} px wide in a view of {} px",
            reading["page_width"], reading["view_width"]
        ));
    }
    found.extend(screenshot_problems(&shown.screenshot, shown.width));
    found
}

/// The files of `wanted` that have fewer of the page's `shown` things (a
/// chart, a table) than the sets have files of that name.
fn missing(what: &str, wanted: &[String], shown: &[serde_json::Value]) -> Vec<String> {
    let names: std::collections::BTreeSet<&String> = wanted.iter().collect();
    names
        .into_iter()
        .filter_map(|file| {
            let on_page = shown.iter().filter(|s| s["file"] == file.as_str()).count();
            let in_sets = wanted.iter().filter(|f| *f == file).count();
            (on_page < in_sets)
                .then(|| format!("{what} {file}: {on_page} on the page for {in_sets} in the sets"))
        })
        .collect()
}

/// What is wrong with a screenshot taken at `width`: not the window's
/// size, or next to nothing on it but its background.
fn screenshot_problems(shot: &image::RgbaImage, width: u32) -> Vec<String> {
    if shot.dimensions() != (width, HEIGHT) {
        return vec![format!(
            "a screenshot of {:?}, not of the window, {width}x{HEIGHT}",
            shot.dimensions()
        )];
    }
    let background = shot.get_pixel(0, 0);
    let ink = shot.pixels().filter(|p| *p != background).count();
    let share = ink as f64 / f64::from(width * HEIGHT);
    if share < MIN_INK {
        vec![format!(
            "the screenshot is blank: {:.2}% of it differs from its background",
            100.0 * share
        )]
    } else {
        Vec::new()
    }
}

/// Checks the page `page` of the output sets `sets` in a browser (see the
/// module's documentation).
pub(crate) fn assert_reads_in_browser(page: &Path, sets: &[&Path]) {
    let found = problems(page, sets);
    assert!(
        found.is_empty(),
        "{} in a browser:\n{}",
        page.display(),
        found.join("\n")
    );
}

/// Checks that the browser check fails on the page `page` of `sets` with
/// its first chart cut out, naming the chart.
pub(crate) fn assert_a_missing_chart_fails(page: &Path, sets: &[&Path]) {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("<svg").expect("a page with a chart");
    let end = start + html[start..].find("</svg>").unwrap() + "</svg>".len();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.html");
    std::fs::write(&cut, format!("{}{}", &html[..start], &html[end..])).unwrap();
    let shown = open(&cut, WIDTHS[0]);
    let found = problems_at(&shown, sets);
    assert!(
        found.iter().any(|p| p.ends_with(": no drawing")),
        "no problem found with a chart cut out: {found:?}"
    );
}
