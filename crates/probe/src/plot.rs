//! Charts as SVG and PNG (plotters): the 1981 study's four curves for one
//! installation (median, mean, 75th and 90th percentiles of elapsed time
//! against the load, its Figures 1 and 2), the 75th percentile of two
//! installations on one chart with each interval as a band (its Figures 3
//! to 10), a run's measured lifetime function, and the curves of a sweep
//! (made in `curves`).
//!
//! A chart is drawn so that a reader can trust it at a glance:
//!
//! - Measured curves are drawn last, solid, with a marker at each point;
//!   a model's curve (MVA) dashed beneath them; a bound thin and straight
//!   between its vertices on any axis ([`Kind`]). Bands go under every
//!   curve, so no interval hides a point.
//! - Ten colours ([`PALETTE`]), then the same ten with another marker:
//!   forty measured curves tell apart. A series with nothing to draw has
//!   no entry in the legend.
//! - An axis whose values are all positive and span more than a decade is
//!   logarithmic, with a labelled tick at each decade (and at 2 and 5
//!   times it where fewer than three decades show). An axis that counts
//!   (users, processes, pages) has whole-number ticks, and a single level
//!   is a point with its interval on an axis of whole steps around it.
//! - Where the points rest on different numbers of observations, a point's
//!   area is proportional to its number, and the legend gives the scale.
//! - Text is set in DejaVu Sans: compiled in for the PNG, and named first
//!   in the SVG's list of fonts ([`FONT`]) before fonts like it, so a
//!   chart looks the same on every machine.

use crate::analysis::{Index, LevelRow};
use crate::compare::ComparisonRow;
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::ops::Range;
use std::sync::Once;
use tpsim_models::system::LifetimePoint;
use tpsim_models::units::Figure;

/// The fonts a chart's text asks for, in order: DejaVu Sans, which the
/// PNG is drawn in (compiled in); Bitstream Vera Sans, which DejaVu was
/// made from (the same letters and widths); Verdana, of a like design;
/// then the viewer's sans-serif.
pub const FONT: &str = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif";

/// How a series is drawn, and when: bounds first, then model curves, then
/// measurements over both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Measured or estimated values: solid, a marker at each point.
    Measured,
    /// A model's curve (MVA): dashed, no markers. In the colour of the
    /// `of`th measured series when it is that curve's alone, else black.
    Model {
        /// The measured series (its place among them) it belongs to.
        of: Option<usize>,
    },
    /// An asymptotic bound: thin, and straight between its points (its
    /// vertices) in the data's units, so straight on linear axes and
    /// drawn as the curve it is on a logarithmic one. Coloured as
    /// [`Kind::Model`].
    Bound {
        /// The measured series (its place among them) it belongs to.
        of: Option<usize>,
    },
}

/// One curve: points, and optionally a band around them.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's name for it.
    pub name: String,
    /// How it is drawn.
    pub kind: Kind,
    /// (x, y) points, by x.
    pub points: Vec<(f64, f64)>,
    /// (x, low, high) of the band, where there is one.
    pub band: Vec<(f64, f64, f64)>,
    /// The number of observations behind each point, in the order of
    /// `points`; empty where it is not known.
    pub counts: Vec<u64>,
}

impl Series {
    /// A series of `kind` through `points`, with no band and no counts.
    pub fn new(name: impl Into<String>, kind: Kind, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            kind,
            points,
            band: Vec::new(),
            counts: Vec::new(),
        }
    }

    /// Whether anything of it is drawn: a legend entry needs a curve.
    fn visible(&self) -> bool {
        self.points
            .iter()
            .any(|(x, y)| x.is_finite() && y.is_finite())
    }
}

/// A chart of curves against a load index, a swept key or a size.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The title.
    pub title: String,
    /// The x axis's label, with its unit.
    pub x_label: String,
    /// Whether the x axis counts things (users, processes, pages): its
    /// ticks are then whole numbers.
    pub x_counts: bool,
    /// The y axis's label, with its unit.
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
/// linear axis: a decade. Wider spans get a logarithmic axis.
const LINEAR_SPAN: f64 = 10.0;

/// Ten colours told apart by readers with normal colour vision and, by
/// lightness, by most others (Tableau's ten).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The marker shapes, one for each round of the palette.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Circle,
    Triangle,
    Square,
    Cross,
}

const SHAPES: [Shape; 4] = [Shape::Circle, Shape::Triangle, Shape::Square, Shape::Cross];

/// The colour and marker of the `i`th measured series.
fn pen(i: usize) -> (RGBColor, Shape) {
    (
        PALETTE[i % PALETTE.len()],
        SHAPES[(i / PALETTE.len()) % SHAPES.len()],
    )
}

/// A series' colour: its own for the `measured`th measured series, its
/// curve's for a model or bound of one curve, else black.
fn colour(kind: Kind, measured: usize) -> RGBColor {
    match kind {
        Kind::Measured => pen(measured).0,
        Kind::Model { of: Some(i) } | Kind::Bound { of: Some(i) } => pen(i).0,
        Kind::Model { of: None } | Kind::Bound { of: None } => BLACK,
    }
}

/// The study's chart of one installation: median, mean, 75th and 90th
/// percentiles of `benchmark`'s elapsed time against the load, the 75th
/// with its interval as a band.
pub fn four_curves(rows: &[LevelRow], benchmark: &str, index: Index, level: f64) -> Chart {
    let rows: Vec<&LevelRow> = rows.iter().filter(|r| r.benchmark == benchmark).collect();
    let curve = |name: &str, y: fn(&LevelRow) -> f64| Series {
        counts: rows.iter().map(|r| r.count as u64).collect(),
        ..Series::new(
            name,
            Kind::Measured,
            rows.iter().map(|r| (r.level, y(r))).collect(),
        )
    };
    let mut p75 = curve("75th percentile", |r| r.p75);
    p75.band = rows
        .iter()
        .filter_map(|r| r.p75_interval.map(|(low, high)| (r.level, low, high)))
        .collect();
    Chart {
        title: format!("{benchmark}: elapsed time against {}", index.label()),
        x_label: index.label().to_string(),
        x_counts: true,
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
    type Side = fn(&ComparisonRow) -> (u64, Option<f64>, Option<(f64, f64)>);
    let side = |name: &str, of: Side| {
        let measured: Vec<(f64, u64, f64)> = rows
            .iter()
            .filter_map(|r| {
                let (count, p75, _) = of(r);
                Some((r.level, count, p75?))
            })
            .collect();
        Series {
            counts: measured.iter().map(|m| m.1).collect(),
            band: rows
                .iter()
                .filter_map(|r| of(r).2.map(|(low, high)| (r.level, low, high)))
                .collect(),
            ..Series::new(
                name,
                Kind::Measured,
                measured.iter().map(|m| (m.0, m.2)).collect(),
            )
        }
    };
    let series = vec![
        side(names.0, |r| (r.a_count as u64, r.a_p75, r.a_p75_interval)),
        side(names.1, |r| (r.b_count as u64, r.b_p75, r.b_p75_interval)),
    ];
    Chart {
        title: format!(
            "{benchmark}: 75th percentile of elapsed time against {}",
            index.label()
        ),
        x_label: index.label().to_string(),
        x_counts: true,
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
            None => series.push(Series::new(&p.class, Kind::Measured, vec![point])),
        }
    }
    Chart {
        title: "Measured lifetime: processor time between faults".to_string(),
        x_label: "resident set [pages]".to_string(),
        x_counts: true,
        y_label: "mean processor time between faults [ms]".to_string(),
        band_label: String::new(),
        series,
    }
}

/// Registers the compiled-in font under the SVG's list of names, once,
/// so that the PNG is drawn in the font the SVG names first.
fn fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
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
    // Charts are mostly flat colour, which the best compression packs to
    // half the size of the default's.
    image::codecs::png::PngEncoder::new_with_quality(
        &mut bytes,
        image::codecs::png::CompressionType::Best,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(&pixels, w, h, image::ExtendedColorType::Rgb8)
    .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// An axis: how values map onto it, over what range, and where its
/// ticks are, all in drawing space (the log10 of the values on a
/// logarithmic axis).
#[derive(Clone, Debug, PartialEq)]
struct Scale {
    log: bool,
    range: Range<f64>,
    /// Labelled ticks.
    ticks: Vec<f64>,
    /// Light grid lines without labels.
    minor: Vec<f64>,
}

impl Scale {
    /// The axis for `values`: logarithmic when all are positive and span
    /// more than a decade; whole-number ticks where `counts`; from 0 where
    /// `from_zero` and no value is negative.
    fn of(values: &[f64], counts: bool, from_zero: bool) -> Scale {
        let (low, high) = values
            .iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        if !low.is_finite() {
            return Scale::linear(0.0..1.0, counts);
        }
        if low > 0.0 && high / low > LINEAR_SPAN {
            return Scale::logarithmic(low, high, counts);
        }
        let range = if high - low <= 1e-9 * high.abs().max(1.0) {
            // One value: a point with room around it, not an axis of its
            // rounding error.
            let room = if counts || low == 0.0 {
                1.0
            } else {
                low.abs() / 10.0
            };
            if from_zero && low >= 0.0 {
                0.0..high + room
            } else {
                low - room..high + room
            }
        } else if from_zero && low >= 0.0 {
            0.0..high * 1.05
        } else {
            let pad = (high - low) * 0.03;
            low - pad..high + pad
        };
        Scale::linear(range, counts)
    }

    fn linear(range: Range<f64>, counts: bool) -> Scale {
        let raw = (range.end - range.start) / 10.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|&s| s >= raw * (1.0 - 1e-9))
            .unwrap_or(10.0 * magnitude);
        let step = if counts { step.max(1.0) } else { step };
        let first = (range.start / step).ceil() as i64;
        let last = (range.end / step).floor() as i64;
        let ticks = (first..=last).map(|k| k as f64 * step).collect();
        Scale {
            log: false,
            range,
            ticks,
            minor: Vec::new(),
        }
    }

    fn logarithmic(low: f64, high: f64, counts: bool) -> Scale {
        // A little room beyond the extreme points, for their markers.
        let range = (low / 1.15).log10()..(high * 1.15).log10();
        let decades = range.start.floor() as i32..=range.end.ceil() as i32;
        let inside = |v: &f64| range.contains(v) || *v == range.end;
        let at = |multiples: &[f64]| -> Vec<f64> {
            decades
                .clone()
                .flat_map(|d| multiples.iter().map(move |m| m * 10f64.powi(d)))
                .filter(|v| !counts || v.fract() == 0.0)
                .map(f64::log10)
                .filter(inside)
                .collect()
        };
        let mut ticks = at(&[1.0]);
        if ticks.len() < 3 {
            ticks = at(&[1.0, 2.0, 5.0]);
        }
        let minor = at(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        Scale {
            log: true,
            range,
            ticks,
            minor,
        }
    }

    /// A value's place in drawing space.
    fn to(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// A tick's label: the value it stands for, as a person writes it.
    fn label(&self, t: f64) -> String {
        let v = if self.log { 10f64.powf(t) } else { t };
        Figure(v).to_string()
    }

    fn coord(&self) -> Ticked {
        Ticked {
            inner: self.range.clone().into(),
            ticks: self.ticks.clone(),
            minor: self.minor.clone(),
        }
    }
}

/// A linear coordinate with the ticks a [`Scale`] chose, not plotters'.
struct Ticked {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
    minor: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}

/// The radius of a marker, in pixels, without counts to size it by.
const MARKER: u32 = 4;

/// The radius of the marker of the most observations, in pixels, when
/// markers are sized by them.
const LARGEST_MARKER: f64 = 7.0;

/// The fewest and most observations behind a chart's points, when they
/// differ.
fn count_range(chart: &Chart) -> Option<(u64, u64)> {
    let counts = chart.series.iter().flat_map(|s| s.counts.iter().copied());
    let (low, high) = counts.fold((u64::MAX, 0), |(l, h), n| (l.min(n), h.max(n)));
    (low < high).then_some((low, high))
}

/// A marker's radius for `count` observations, its area in proportion,
/// where the chart's counts range over `range`.
fn radius(count: Option<u64>, range: Option<(u64, u64)>) -> u32 {
    match (count, range) {
        (Some(n), Some((_, most))) => {
            (LARGEST_MARKER * (n as f64 / most as f64).sqrt()).round() as u32
        }
        _ => MARKER,
    }
    .max(2)
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let xs: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
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
    let x = Scale::of(&xs, chart.x_counts, false);
    let y = Scale::of(&ys, false, true);
    curves(&plot, chart, &x, &y)?;
    draw_legend(&legend, chart)
}

/// The axes, bands, curves and markers of `chart` on `area`.
fn curves<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    x: &Scale,
    y: &Scale,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mut c = ChartBuilder::on(area)
        .caption(&chart.title, (FONT, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x.coord(), y.coord())
        .map_err(err)?;
    let x_tick = |t: &f64| x.label(*t);
    let y_tick = |t: &f64| y.label(*t);
    let scale = |s: &Scale| if s.log { " (log scale)" } else { "" };
    c.configure_mesh()
        .x_desc(format!("{}{}", chart.x_label, scale(x)))
        .y_desc(format!("{}{}", chart.y_label, scale(y)))
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(err)?;
    let at = |(px, py): (f64, f64)| (x.to(px), y.to(py));
    let finite = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let places = places(chart);
    let area = c.plotting_area();
    for (s, &place) in chart.series.iter().zip(&places) {
        let colour = colour(s.kind, place);
        for run in band_runs(s) {
            if let [(bx, low, high)] = run[..] {
                // A level alone: an error bar with caps, not a band.
                let style = colour.stroke_width(2);
                area.draw(&PathElement::new([at((bx, low)), at((bx, high))], style))
                    .map_err(err)?;
                for end in [low, high] {
                    area.draw(
                        &(EmptyElement::at(at((bx, end)))
                            + PathElement::new([(-6, 0), (6, 0)], style)),
                    )
                    .map_err(err)?;
                }
                continue;
            }
            let outline: Vec<(f64, f64)> = run
                .iter()
                .map(|b| at((b.0, b.2)))
                .chain(run.iter().rev().map(|b| at((b.0, b.1))))
                .collect();
            area.draw(&Polygon::new(outline, colour.mix(BAND_SHADE)))
                .map_err(err)?;
            for edge in [
                run.iter().map(|b| at((b.0, b.1))).collect::<Vec<_>>(),
                run.iter().map(|b| at((b.0, b.2))).collect(),
            ] {
                area.draw(&PathElement::new(edge, colour.mix(0.6).stroke_width(1)))
                    .map_err(err)?;
            }
        }
    }
    let counts = count_range(chart);
    for i in drawing_order(chart) {
        let (s, place) = (&chart.series[i], places[i]);
        let colour = colour(s.kind, place);
        let points: Vec<(f64, f64)> = s.points.iter().copied().filter(finite).collect();
        match s.kind {
            Kind::Bound { .. } => {
                let path: Vec<(f64, f64)> = straight(&points, x.log || y.log)
                    .into_iter()
                    .map(at)
                    .collect();
                area.draw(&PathElement::new(path, colour.stroke_width(1)))
                    .map_err(err)?;
            }
            Kind::Model { .. } => {
                let path = points.iter().copied().map(at);
                area.draw(&DashedPathElement::new(path, 8, 5, colour.stroke_width(2)))
                    .map_err(err)?;
            }
            Kind::Measured => {
                let path: Vec<(f64, f64)> = points.iter().copied().map(at).collect();
                area.draw(&PathElement::new(path, colour.stroke_width(2)))
                    .map_err(err)?;
                let shape = pen(place).1;
                for (j, p) in s.points.iter().enumerate().filter(|(_, p)| finite(p)) {
                    let r = radius(s.counts.get(j).copied(), counts);
                    marker(area, at(*p), shape, r, colour)?;
                }
            }
        }
    }
    Ok(())
}

/// Each series' place among the measured ones (a model's or a bound's:
/// the measured series' count before it), which picks its pen.
fn places(chart: &Chart) -> Vec<usize> {
    chart
        .series
        .iter()
        .scan(0, |n, s| {
            let place = *n;
            *n += usize::from(s.kind == Kind::Measured);
            Some(place)
        })
        .collect()
}

/// The order series are drawn in: bounds, then model curves, then the
/// measured over both; and of each kind, those with fewer points over
/// those with more, so that a short curve (a class that faulted enough at
/// two sizes only) is not buried under a long one.
fn drawing_order(chart: &Chart) -> Vec<usize> {
    let rank = |kind: Kind| match kind {
        Kind::Bound { .. } => 0,
        Kind::Model { .. } => 1,
        Kind::Measured => 2,
    };
    let mut order: Vec<usize> = (0..chart.series.len()).collect();
    order.sort_by_key(|&i| {
        let s = &chart.series[i];
        (rank(s.kind), std::cmp::Reverse(s.points.len()))
    });
    order
}

/// How many pieces a bound's straight segment is cut into on a
/// logarithmic axis, where it is drawn as the curve it becomes.
const PIECES: u32 = 48;

/// The path through a bound's vertices that is straight in the data's
/// units: the vertices themselves on linear axes; on a logarithmic axis,
/// points along each segment close enough to draw it.
fn straight(vertices: &[(f64, f64)], log: bool) -> Vec<(f64, f64)> {
    if !log {
        return vertices.to_vec();
    }
    let mut path: Vec<(f64, f64)> = vertices.first().copied().into_iter().collect();
    for w in vertices.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        path.extend((1..=PIECES).map(|k| {
            let f = f64::from(k) / f64::from(PIECES);
            (x0 + f * (x1 - x0), y0 + f * (y1 - y0))
        }));
    }
    path
}

/// A marker of `shape` and `radius` pixels at `at` on `area`.
fn marker<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    shape: Shape,
    radius: u32,
    colour: RGBColor,
) -> Result<(), String> {
    let r = radius as i32;
    let drawn = match shape {
        Shape::Circle => area.draw(&Circle::new(at, radius, colour.filled())),
        Shape::Triangle => area.draw(&TriangleMarker::new(at, r + 1, colour.filled())),
        Shape::Square => {
            area.draw(&(EmptyElement::at(at) + Rectangle::new([(-r, -r), (r, r)], colour.filled())))
        }
        Shape::Cross => area.draw(&Cross::new(at, r, colour.stroke_width(2))),
    };
    drawn.map_err(|e| e.to_string())
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

/// The legend's lines, in the order shown: each visible series, under a
/// banded one its band (named for its series when several have one), and
/// the scale of the markers when they are sized by observations.
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    Series {
        place: usize,
        series: usize,
    },
    Band {
        place: usize,
        series: usize,
        text: String,
    },
    Counts {
        count: u64,
        range: (u64, u64),
    },
    Heading(String),
}

fn entries(chart: &Chart) -> Vec<Entry> {
    let banded = chart.series.iter().filter(|s| !s.band.is_empty()).count();
    let mut lines = Vec::new();
    for ((i, s), this) in chart.series.iter().enumerate().zip(places(chart)) {
        if !s.visible() {
            continue;
        }
        lines.push(Entry::Series {
            place: this,
            series: i,
        });
        if !s.band.is_empty() {
            // Under its curve's entry, in its colour; with several bands,
            // said to be that curve's in words too.
            let text = if banded > 1 {
                format!("its {}", chart.band_label)
            } else {
                chart.band_label.clone()
            };
            lines.push(Entry::Band {
                place: this,
                series: i,
                text,
            });
        }
    }
    if let Some(range) = count_range(chart) {
        lines.push(Entry::Heading("point area: observations".into()));
        lines.push(Entry::Counts {
            count: range.0,
            range,
        });
        lines.push(Entry::Counts {
            count: range.1,
            range,
        });
    }
    lines
}

/// The legend, in its own area beside the plot: a line for each curve,
/// drawn as the curve is, and under it a shaded box for its band.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = (FONT, 14).into_font();
    let line = 20;
    let top = 50;
    let room = ((SIZE.1 as i32 - top) / line) as usize;
    let mut lines = entries(chart);
    if lines.len() > room {
        // Nothing cut silently: the last line says how much is left out.
        let left = lines.len() - (room - 1);
        lines.truncate(room - 1);
        lines.push(Entry::Heading(format!("… {left} more lines")));
    }
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
    for (n, entry) in lines.iter().enumerate() {
        let y = top + n as i32 * line;
        let mid = y + 7;
        let label = match entry {
            Entry::Series { place, series } => {
                let s = &chart.series[*series];
                let colour = colour(s.kind, *place);
                match s.kind {
                    Kind::Measured => {
                        area.draw(&PathElement::new(
                            [(8, mid), (32, mid)],
                            colour.stroke_width(2),
                        ))
                        .map_err(err)?;
                        marker(area, (20, mid), pen(*place).1, MARKER, colour)?;
                    }
                    Kind::Model { .. } => {
                        area.draw(&DashedPathElement::new(
                            [(8, mid), (32, mid)],
                            8,
                            5,
                            colour.stroke_width(2),
                        ))
                        .map_err(err)?;
                    }
                    Kind::Bound { .. } => {
                        area.draw(&PathElement::new(
                            [(8, mid), (32, mid)],
                            colour.stroke_width(1),
                        ))
                        .map_err(err)?;
                    }
                }
                s.name.clone()
            }
            Entry::Band {
                place,
                series,
                text,
            } => {
                let colour = colour(chart.series[*series].kind, *place);
                area.draw(&Rectangle::new(
                    [(8, y + 1), (32, y + 13)],
                    colour.mix(BAND_SHADE).filled(),
                ))
                .map_err(err)?;
                text.clone()
            }
            Entry::Counts { count, range } => {
                marker(
                    area,
                    (20, mid),
                    Shape::Circle,
                    radius(Some(*count), Some(*range)),
                    BLACK,
                )?;
                format!("{count}")
            }
            Entry::Heading(words) => words.clone(),
        };
        area.draw(&Text::new(text(&label), (40, y), font.clone()))
            .map_err(err)?;
    }
    Ok(())
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
        assert_eq!(chart.series[2].counts, [40; 5]);
        assert!(chart.series[0].band.is_empty());
    }

    fn compared() -> Vec<ComparisonRow> {
        rows()
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
            .collect()
    }

    #[test]
    fn charts_render_as_svg_and_png() {
        let chart = p75_chart(
            ("paged", "swapped"),
            &compared(),
            "man",
            Index::Processes,
            0.95,
        );
        assert_eq!(chart.series[1].points.len(), 3);
        assert_eq!(chart.series[1].counts, [3, 3, 3]);
        assert_eq!(chart.series[0].band.len(), 5);
        let svg = svg(&chart).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("swapped"),
            "{svg:.200}"
        );
        let png = png(&chart).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // A chart with nothing to draw still renders.
        let empty = four_curves(&rows(), "cc", Index::Users, 0.95);
        assert!(svg_ok(&empty));
    }

    #[test]
    fn points_on_different_numbers_of_observations_are_sized_and_the_legend_gives_the_scale() {
        let chart = p75_chart(("a", "b"), &compared(), "man", Index::Users, 0.95);
        assert_eq!(count_range(&chart), Some((3, 40)));
        assert_eq!(radius(Some(40), Some((3, 40))), 7);
        assert_eq!(radius(Some(10), Some((3, 40))), 4);
        assert_eq!(radius(Some(1), Some((1, 400))), 2);
        let lines = entries(&chart);
        assert!(lines.contains(&Entry::Counts {
            count: 3,
            range: (3, 40)
        }));
        let text = svg(&chart).unwrap();
        assert!(text.contains("point area: observations"), "{text:.300}");
        // Where every point rests on as many, there is nothing to size.
        let even = four_curves(&rows(), "man", Index::Users, 0.95);
        assert_eq!(count_range(&even), None);
        assert!(!svg(&even).unwrap().contains("point area"));
    }

    #[test]
    fn two_bands_in_the_legend_are_each_said_to_be_their_curves() {
        let mut chart = p75_chart(("a", "b"), &compared(), "man", Index::Users, 0.95);
        chart.series[1].band = vec![(1.0, 2.0, 3.0), (2.0, 4.0, 5.0)];
        let bands: Vec<String> = entries(&chart)
            .into_iter()
            .filter_map(|e| match e {
                Entry::Band { text, .. } => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(bands, ["its 95% interval", "its 95% interval"]);
        let one = entries(&p75_chart(
            ("a", "b"),
            &compared(),
            "man",
            Index::Users,
            0.95,
        ));
        assert!(
            one.iter()
                .any(|e| matches!(e, Entry::Band { text, .. } if text == "95% interval"))
        );
    }

    #[test]
    fn a_band_is_cut_where_a_level_has_no_interval() {
        let series = Series {
            band: [0, 1, 3, 4]
                .iter()
                .map(|&x| (f64::from(x), 0.5, 1.5))
                .chain(std::iter::once((5.0, 0.9, 1.1)))
                .collect(),
            ..Series::new(
                "paged",
                Kind::Measured,
                (0..6).map(|x| (f64::from(x), 1.0)).collect(),
            )
        };
        let runs = band_runs(&series);
        let xs: Vec<Vec<f64>> = runs
            .iter()
            .map(|r| r.iter().map(|b| b.0).collect())
            .collect();
        assert_eq!(xs, [vec![0.0, 1.0], vec![3.0, 4.0, 5.0]]);
    }

    fn chart_of(xs: &[f64], ys: &[f64]) -> Chart {
        Chart {
            title: "t".into(),
            x_label: "resident set [pages]".into(),
            x_counts: true,
            y_label: "mean processor time between faults [ms]".into(),
            band_label: "95% interval".into(),
            series: vec![Series {
                band: vec![(xs[0], ys[0] * 0.9, ys[0] * 1.1)],
                ..Series::new(
                    "job",
                    Kind::Measured,
                    xs.iter().copied().zip(ys.iter().copied()).collect(),
                )
            }],
        }
    }

    /// The text of an SVG's `<text>` elements.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                Some(
                    t.split_once('>')?
                        .1
                        .split_once("</text>")?
                        .0
                        .trim()
                        .to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn values_over_a_decade_get_a_logarithmic_axis_with_its_decades_labelled() {
        let wide = svg(&chart_of(&[1.0, 2.0, 3.0], &[0.01, 1.0, 1000.0])).unwrap();
        assert!(wide.contains("(log scale)"), "{wide:.300}");
        let labels = texts(&wide);
        for decade in ["0.01", "0.1", "1", "10", "100", "1000"] {
            assert!(labels.iter().any(|l| l == decade), "{decade} in {labels:?}");
        }
        // Just over a decade is logarithmic, just under is not.
        let y = Scale::of(&[1.0, 10.5], false, true);
        assert!(y.log);
        let y = Scale::of(&[1.0, 9.5], false, true);
        assert!(!y.log);
        // Fewer than three decades: 2 and 5 times them are labelled too.
        let x = Scale::of(&[4.0, 40.0, 60.0], true, false);
        let shown: Vec<String> = x.ticks.iter().map(|&t| x.label(t)).collect();
        assert_eq!(shown, ["5", "10", "20", "50"]);
        // The x axis too: a sweep from 1 to 1000 users.
        let xs = svg(&chart_of(&[1.0, 30.0, 1000.0], &[1.0, 2.0, 3.0])).unwrap();
        assert!(xs.contains("resident set [pages] (log scale)"));
        assert!(!xs.contains("between faults [ms] (log scale)"));
        let narrow = svg(&chart_of(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0])).unwrap();
        assert!(!narrow.contains("(log scale)"));
        // The band has its legend entry; ticks read 1, 2, 3, not 1.0.
        assert!(narrow.contains("95% interval"));
        let labels = texts(&narrow);
        assert!(labels.iter().any(|l| l == "2") && !labels.iter().any(|l| l == "1.0"));
    }

    #[test]
    fn an_axis_that_counts_has_whole_ticks_and_one_level_is_a_point_on_whole_steps() {
        for xs in [
            &[5.0][..],
            &[4.5, 5.0],
            &[1.0, 2.0, 3.0],
            &[3.0, 4.0],
            &[40.0, 95.0],
        ] {
            let x = Scale::of(xs, true, false);
            assert!(!x.ticks.is_empty(), "{xs:?}");
            for t in &x.ticks {
                assert_eq!(t.fract(), 0.0, "{xs:?}: {:?}", x.ticks);
                assert!(!x.label(*t).contains('.'), "{xs:?}");
            }
        }
        let one = Scale::of(&[5.0], true, false);
        assert_eq!(
            (one.range.clone(), one.ticks.clone()),
            (4.0..6.0, vec![4.0, 5.0, 6.0])
        );
        // The same axis as plain numbers may step in tenths.
        let plain = Scale::of(&[4.5, 5.0], false, false);
        assert!(plain.ticks.iter().any(|t| t.fract() != 0.0), "{plain:?}");
        // A single level in the SVG: whole ticks, the mean a marker over
        // the interval's bar.
        let single: Vec<LevelRow> = rows().into_iter().take(1).collect();
        let text = svg(&four_curves(&single, "man", Index::Users, 0.95)).unwrap();
        let labels = texts(&text);
        assert!(labels.iter().any(|l| l == "1"), "{labels:?}");
        assert!(
            !labels.iter().any(|l| l == "0.9" || l == "1.1"),
            "{labels:?}"
        );
    }

    #[test]
    fn the_palette_tells_ten_apart_and_markers_the_rounds_beyond() {
        let distance = |a: RGBColor, b: RGBColor| {
            let d = |p: u8, q: u8| (f64::from(p) - f64::from(q)).powi(2);
            (d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)).sqrt()
        };
        assert!(PALETTE.len() >= 10);
        for (i, &a) in PALETTE.iter().enumerate() {
            for &b in &PALETTE[i + 1..] {
                assert!(distance(a, b) > 60.0, "{a:?} and {b:?} look alike");
            }
            assert!(distance(a, WHITE) > 60.0 && distance(a, BLACK) > 60.0);
        }
        let pens: Vec<(RGBColor, Shape)> = (0..40).map(pen).collect();
        for (i, p) in pens.iter().enumerate() {
            assert!(!pens[..i].contains(p), "pen {i} repeats");
        }
    }

    #[test]
    fn the_legend_names_only_what_is_drawn() {
        let mut chart = chart_of(&[1.0, 2.0], &[1.0, 2.0]);
        chart
            .series
            .push(Series::new("nothing", Kind::Measured, Vec::new()));
        chart.series.push(Series::new(
            "unmeasured",
            Kind::Measured,
            vec![(1.0, f64::NAN)],
        ));
        chart
            .series
            .push(Series::new("seen", Kind::Measured, vec![(1.0, 1.5)]));
        let text = svg(&chart).unwrap();
        assert!(text.contains(">\nseen\n") || texts(&text).contains(&"seen".to_string()));
        for hidden in ["nothing", "unmeasured"] {
            assert!(!texts(&text).contains(&hidden.to_string()), "{hidden}");
        }
        // The series after the hidden ones keeps its own colour: the third
        // of the palette.
        let seen = entries(&chart).into_iter().find_map(|e| match e {
            Entry::Series { place, series: 3 } => Some(place),
            _ => None,
        });
        assert_eq!(seen, Some(3));
        // The one-point series are drawn over the two-point one.
        assert_eq!(drawing_order(&chart), [0, 2, 3, 1]);
        // Measured over MVA over the bound, whatever the order given.
        chart.series[0].kind = Kind::Bound { of: None };
        chart.series[2].kind = Kind::Model { of: None };
        assert_eq!(drawing_order(&chart), [0, 2, 3, 1]);
        chart.series.swap(0, 3);
        assert_eq!(drawing_order(&chart), [3, 2, 0, 1]);
    }

    #[test]
    fn a_bound_is_straight_in_the_data_also_on_a_logarithmic_axis() {
        let corner = [(1.0, 0.1), (6.0, 0.6), (40.0, 0.6)];
        assert_eq!(straight(&corner, false), corner);
        let path = straight(&corner, true);
        assert_eq!(path.len(), 1 + 2 * PIECES as usize);
        assert!(path.contains(&(6.0, 0.6)) && path.contains(&(40.0, 0.6)));
        for &(x, y) in &path {
            let expected = (x / 10.0).min(0.6);
            assert!((y - expected).abs() < 1e-12, "({x}, {y})");
        }
    }

    #[test]
    fn text_asks_for_the_font_the_png_is_drawn_in_then_its_kin() {
        assert!(FONT.starts_with("DejaVu Sans,") && FONT.ends_with("sans-serif"));
        let text = svg(&chart_of(&[1.0, 2.0], &[1.0, 2.0])).unwrap();
        assert!(
            text.contains(&format!("font-family=\"{FONT}\"")),
            "{text:.400}"
        );
        assert!(!text.contains("font-family=\"sans-serif\""));
    }

    fn svg_ok(chart: &Chart) -> bool {
        svg(chart).is_ok() && png(chart).is_ok()
    }
}
