//! Charts of the probe analysis as SVG and PNG (plotters): the 1981 study's
//! four curves for one installation (median, mean, 75th and 90th
//! percentiles of elapsed time against the load, its Figures 1 and 2), and
//! the 75th percentile of two installations on one chart with each
//! interval as a band (its Figures 3 to 10); and a run's measured
//! lifetime function.
//!
//! Text is set in DejaVu Sans, compiled in, so a chart looks the same on
//! every machine whatever fonts it has.

use crate::analysis::{Index, LevelRow};
use crate::compare::ComparisonRow;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::sync::Once;
use tpsim_models::system::LifetimePoint;
use tpsim_models::units::Figure;

/// One curve: points, and optionally a band around them.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's name for it.
    pub name: String,
    /// (x, y) points, by x.
    pub points: Vec<(f64, f64)>,
    /// (x, low, high) of the band, where there is one.
    pub band: Vec<(f64, f64, f64)>,
}

/// A chart of curves against a load index.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The title.
    pub title: String,
    /// The x axis's label.
    pub x_label: String,
    /// The y axis's label.
    pub y_label: String,
    /// What the bands are, for the legend (such as "95% interval").
    pub band_label: String,
    /// The curves.
    pub series: Vec<Series>,
}

/// The size of a chart, in pixels.
const SIZE: (u32, u32) = (900, 500);

/// The legend's width beside the plot, in pixels: the legend never covers
/// a curve.
const LEGEND_WIDTH: u32 = 230;

/// The widest span of positive values, largest over smallest, drawn on a
/// linear axis; wider spans get a logarithmic one.
const LINEAR_SPAN: f64 = 100.0;

const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// The study's chart of one installation: median, mean, 75th and 90th
/// percentiles of `benchmark`'s elapsed time against the load, the 75th
/// with its interval as a band.
pub fn four_curves(rows: &[LevelRow], benchmark: &str, index: Index, level: f64) -> Chart {
    let rows: Vec<&LevelRow> = rows.iter().filter(|r| r.benchmark == benchmark).collect();
    let curve = |name: &str, y: fn(&LevelRow) -> f64| Series {
        name: name.to_string(),
        points: rows.iter().map(|r| (r.level, y(r))).collect(),
        band: Vec::new(),
    };
    let mut p75 = curve("75th percentile", |r| r.p75);
    p75.band = band(&rows);
    Chart {
        title: format!("{benchmark}: elapsed time against {}", index.label()),
        x_label: index.label().to_string(),
        y_label: "elapsed time [s]".to_string(),
        band_label: format!("{}% interval", Figure(level * 100.0)),
        series: vec![
            curve("median", |r| r.median),
            curve("mean", |r| r.mean),
            p75,
            curve("90th percentile", |r| r.p90),
        ],
    }
}

/// The 75th percentile of `benchmark` at the two installations `names`
/// of a comparison, each with its interval as a band.
pub fn p75_chart(
    names: (&str, &str),
    rows: &[ComparisonRow],
    benchmark: &str,
    index: Index,
    level: f64,
) -> Chart {
    let rows: Vec<&ComparisonRow> = rows.iter().filter(|r| r.benchmark == benchmark).collect();
    type Side = fn(&ComparisonRow) -> (Option<f64>, Option<(f64, f64)>);
    let side = |name: &str, of: Side| Series {
        name: name.to_string(),
        points: rows
            .iter()
            .filter_map(|r| Some((r.level, of(r).0?)))
            .collect(),
        band: rows
            .iter()
            .filter_map(|r| of(r).1.map(|(low, high)| (r.level, low, high)))
            .collect(),
    };
    let series = vec![
        side(names.0, |r| (r.a_p75, r.a_p75_interval)),
        side(names.1, |r| (r.b_p75, r.b_p75_interval)),
    ];
    Chart {
        title: format!(
            "{benchmark}: 75th percentile of elapsed time against {}",
            index.label()
        ),
        x_label: index.label().to_string(),
        y_label: "elapsed time, 75th percentile [s]".to_string(),
        band_label: format!("{}% interval", Figure(level * 100.0)),
        series,
    }
}

/// The fewest faults at a resident set size for the lifetime chart to
/// show it: fewer give too rough a mean.
const LIFETIME_MIN_FAULTS: u64 = 20;

/// The measured lifetime function of each class (`lifetime.csv`): the mean
/// processor time between faults against the resident set size, at the
/// sizes with at least 20 faults.
pub fn lifetime_chart(points: &[LifetimePoint]) -> Chart {
    let mut series: Vec<Series> = Vec::new();
    for p in points.iter().filter(|p| p.faults >= LIFETIME_MIN_FAULTS) {
        let point = (
            p.resident_pages as f64,
            1e3 * p.cpu_seconds / p.faults as f64,
        );
        match series.iter_mut().find(|s| s.name == p.class) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name: p.class.clone(),
                points: vec![point],
                band: Vec::new(),
            }),
        }
    }
    Chart {
        title: "Measured lifetime: processor time between faults".to_string(),
        x_label: "resident set [pages]".to_string(),
        y_label: "mean processor time between faults [ms]".to_string(),
        band_label: String::new(),
        series,
    }
}

fn band(rows: &[&LevelRow]) -> Vec<(f64, f64, f64)> {
    rows.iter()
        .filter_map(|r| r.p75_interval.map(|(low, high)| (r.level, low, high)))
        .collect()
}

/// Registers the compiled-in font, once.
fn fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .unwrap_or_else(|_| panic!("the compiled-in DejaVu Sans is a valid font"));
    });
}

/// The chart as an SVG document.
pub fn svg(chart: &Chart) -> Result<String, String> {
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        draw(&root, chart)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The chart as a PNG image.
pub fn png(chart: &Chart) -> Result<Vec<u8>, String> {
    fonts();
    let (w, h) = SIZE;
    let mut pixels = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        draw(&root, chart)?;
        root.present().map_err(|e| e.to_string())?;
    }
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(&pixels, w, h, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

use image::ImageEncoder;

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let xs = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let ys: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.band.iter().flat_map(|b| [b.1, b.2]))
        })
        .collect();
    let (x_low, x_high) = range(xs);
    let (y_low, y_high) = range(ys.iter().copied());
    if y_low > 0.0 && y_high / y_low >= LINEAR_SPAN {
        // Values over decades: a linear axis would show one spike and
        // flat lines.
        let y = (y_low / 1.2..y_high * 1.2).log_scale();
        curves(&plot, chart, x_low..x_high, y, " (log scale)")?;
    } else {
        curves(&plot, chart, x_low..x_high, 0.0..y_high * 1.05, "")?;
    }
    draw_legend(&legend, chart)
}

/// The axes, bands, curves and points of `chart` on `area`, over the
/// ranges `x` and `y`; `scale` is added to the y axis's label.
fn curves<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    x: std::ops::Range<f64>,
    y: Y,
    scale: &str,
) -> Result<(), String>
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mut c = ChartBuilder::on(area)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    // Ticks as a person writes numbers: 5, not 5.0.
    let tick = |v: &f64| Figure(*v).to_string();
    c.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(format!("{}{scale}", chart.y_label))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    for (i, s) in chart.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        for run in band_runs(s) {
            if let [(x, low, high)] = run[..] {
                // A level alone: an error bar, not a band to its neighbours.
                c.draw_series(std::iter::once(PathElement::new(
                    [(x, low), (x, high)],
                    colour.mix(0.6).stroke_width(6),
                )))
                .map_err(err)?;
                continue;
            }
            let outline: Vec<(f64, f64)> = run
                .iter()
                .map(|b| (b.0, b.2))
                .chain(run.iter().rev().map(|b| (b.0, b.1)))
                .collect();
            c.draw_series(std::iter::once(Polygon::new(
                outline,
                colour.mix(BAND_SHADE),
            )))
            .map_err(err)?;
            for edge in [
                run.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>(),
                run.iter().map(|b| (b.0, b.2)).collect(),
            ] {
                c.draw_series(LineSeries::new(edge, colour.mix(0.6).stroke_width(1)))
                    .map_err(err)?;
            }
        }
        c.draw_series(LineSeries::new(
            s.points.iter().copied(),
            colour.stroke_width(2),
        ))
        .map_err(err)?;
        c.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// A series' band cut where a point of the curve has none, so that a
/// band never bridges levels without an interval.
fn band_runs(s: &Series) -> Vec<Vec<(f64, f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64, f64)>> = Vec::new();
    let mut open = false;
    for &(x, _) in &s.points {
        match s.band.iter().find(|b| b.0 == x) {
            Some(&b) if open => runs.last_mut().expect("a run is open").push(b),
            Some(&b) => {
                runs.push(vec![b]);
                open = true;
            }
            None => open = false,
        }
    }
    runs
}

/// How opaque a band is.
const BAND_SHADE: f64 = 0.25;

/// The legend, in its own area beside the plot: a line for each curve,
/// and under it a shaded box for its band.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = ("sans-serif", 14).into_font();
    let mut y = 50;
    let line = 20;
    let text = |label: &str| {
        // Long names are cut to fit the legend's width.
        let most = 26;
        if label.chars().count() > most {
            let kept: String = label.chars().take(most - 1).collect();
            format!("{kept}…")
        } else {
            label.to_string()
        }
    };
    for (i, s) in chart.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        area.draw(&PathElement::new(
            [(8, y + 7), (32, y + 7)],
            colour.stroke_width(2),
        ))
        .map_err(err)?;
        area.draw(&Circle::new((20, y + 7), 3, colour.filled()))
            .map_err(err)?;
        area.draw(&Text::new(text(&s.name), (40, y), font.clone()))
            .map_err(err)?;
        y += line;
        if !s.band.is_empty() {
            area.draw(&Rectangle::new(
                [(8, y + 1), (32, y + 13)],
                colour.mix(BAND_SHADE).filled(),
            ))
            .map_err(err)?;
            // Under its curve's entry, so the name need not be repeated.
            area.draw(&Text::new(text(&chart.band_label), (40, y), font.clone()))
                .map_err(err)?;
            y += line;
        }
    }
    Ok(())
}

/// The range of `values`, widened to a unit when it is empty or a point.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !low.is_finite() {
        (0.0, 1.0)
    } else if high - low < 1e-9 {
        (low - 0.5, high + 0.5)
    } else {
        (low, high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<LevelRow> {
        (1..=5)
            .map(|l| LevelRow {
                benchmark: "man".into(),
                level: f64::from(l),
                count: 40,
                median: f64::from(l) * 2.0,
                mean: f64::from(l) * 2.5,
                p75: f64::from(l) * 3.0,
                p75_interval: Some((f64::from(l) * 2.8, f64::from(l) * 3.3)),
                p90: f64::from(l) * 4.0,
                needed: Some(0),
            })
            .collect()
    }

    #[test]
    fn the_lifetime_chart_shows_each_class_where_it_faulted_enough() {
        let point = |class: &str, resident, cpu_seconds, faults| LifetimePoint {
            class: class.into(),
            resident_pages: resident,
            cpu_seconds,
            faults,
        };
        let chart = lifetime_chart(&[
            point("cc", 3, 0.1, 50),
            point("cc", 4, 0.2, 19),
            point("ed", 2, 0.04, 20),
            point("cc", 5, 0.5, 25),
        ]);
        assert_eq!(chart.series.len(), 2);
        assert_eq!(chart.series[0].name, "cc");
        assert_eq!(chart.series[0].points, [(3.0, 2.0), (5.0, 20.0)]);
        assert_eq!(chart.series[1].points, [(2.0, 2.0)]);
        assert!(svg(&chart).unwrap().contains("resident set [pages]"));
        assert!(svg(&lifetime_chart(&[])).is_ok());
    }

    #[test]
    fn the_four_curves_follow_the_rows() {
        let chart = four_curves(&rows(), "man", Index::Users, 0.95);
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["median", "mean", "75th percentile", "90th percentile"]
        );
        assert_eq!(chart.series[2].points[4], (5.0, 15.0));
        assert_eq!(chart.series[2].band[0], (1.0, 2.8, 3.3));
        assert!(chart.series[0].band.is_empty());
    }

    #[test]
    fn charts_render_as_svg_and_png() {
        let r = rows();
        let compared: Vec<ComparisonRow> = r
            .iter()
            .map(|x| ComparisonRow {
                benchmark: x.benchmark.clone(),
                level: x.level,
                a_count: 40,
                a_p75: Some(x.p75),
                a_p75_interval: x.p75_interval,
                b_count: 3,
                b_p75: (x.level <= 3.0).then_some(x.p75 * 0.8),
                b_p75_interval: None,
                difference: None,
                interval: None,
                significant: false,
            })
            .collect();
        let chart = p75_chart(
            ("paged", "swapped"),
            &compared,
            "man",
            Index::Processes,
            0.95,
        );
        assert_eq!(chart.series[1].points.len(), 3);
        assert_eq!(chart.series[0].band.len(), 5);
        let svg = svg(&chart).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("swapped"),
            "{svg:.200}"
        );
        let png = png(&chart).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // A chart with nothing to draw still renders.
        let empty = four_curves(&r, "cc", Index::Users, 0.95);
        assert!(svg_ok(&empty));
    }

    #[test]
    fn a_band_is_cut_where_a_level_has_no_interval() {
        let series = Series {
            name: "paged".into(),
            points: (0..6).map(|x| (f64::from(x), 1.0)).collect(),
            band: [0, 1, 3, 4]
                .iter()
                .map(|&x| (f64::from(x), 0.5, 1.5))
                .chain(std::iter::once((5.0, 0.9, 1.1)))
                .collect(),
        };
        let runs = band_runs(&series);
        let xs: Vec<Vec<f64>> = runs
            .iter()
            .map(|r| r.iter().map(|b| b.0).collect())
            .collect();
        assert_eq!(xs, [vec![0.0, 1.0], vec![3.0, 4.0, 5.0]]);
    }

    #[test]
    fn values_over_decades_get_a_logarithmic_axis_and_the_legend_stays_beside_the_plot() {
        let chart = |ys: [f64; 3]| Chart {
            title: "t".into(),
            x_label: "resident set [pages]".into(),
            y_label: "mean processor time between faults [ms]".into(),
            band_label: "95% interval".into(),
            series: vec![Series {
                name: "job".into(),
                points: vec![(1.0, ys[0]), (2.0, ys[1]), (3.0, ys[2])],
                band: vec![(1.0, ys[0] * 0.9, ys[0] * 1.1)],
            }],
        };
        let wide = svg(&chart([0.01, 1.0, 1000.0])).unwrap();
        assert!(wide.contains("(log scale)"), "{wide:.300}");
        let narrow = svg(&chart([1.0, 2.0, 3.0])).unwrap();
        assert!(!narrow.contains("(log scale)"));
        // The band has its legend entry; ticks read 1, 2, 3, not 1.0.
        assert!(narrow.contains("95% interval"));
        let text: Vec<&str> = narrow.lines().map(str::trim).collect();
        assert!(text.contains(&"2") && !text.contains(&"1.0"), "{text:?}");
    }

    fn svg_ok(chart: &Chart) -> bool {
        svg(chart).is_ok() && png(chart).is_ok()
    }
}
