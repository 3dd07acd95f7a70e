//! Memory as frames: each frame knows the page it holds, whether that page
//! was referenced since the hand last passed and whether it is modified; a
//! global clock (the 3BSD pageout daemon) frees the frames whose pages were
//! not referenced in a revolution; faults follow each class's phase model.
//!
//! References are never events. A process in a phase references the `s`
//! pages of its locality set uniformly, as a Poisson stream of rate
//! `1 / reference` in its processor time, so each page of the set is
//! referenced as a Poisson stream of rate `1 / (s · reference)`,
//! independently of the others (a thinned Poisson stream). Two things
//! follow, and make the model exact without drawing a single reference:
//!
//! - The processor time to the next fault is exponential with rate
//!   `missing / (s · reference)`, `missing` being the set's pages not
//!   resident. A process's resident set cannot change while it is on a
//!   processor (the hand passes over its frames, and other faults take only
//!   free frames), so the draw made at dispatch holds for the whole burst;
//!   by memorylessness it is drawn afresh at each dispatch.
//! - Whether a resident page was referenced since the hand cleared its bit
//!   is decided only when the hand looks at it, from the processor time its
//!   owner spent with the page in its set since the last look: referenced
//!   with probability `1 - exp(-u / (s · reference))` over `u`, and the
//!   last reference then lies an exponential time back. When the phase
//!   changes, the pages of the old set are decided up to that moment.
//!
//! The run's cost therefore grows with faults and with the frames the hand
//! looks at, not with references. A class's shared text has one page table
//! for all its processes ([`text`]).
//!
//! Under a non-uniform pattern (Zipf's law) page i of the set is
//! referenced at its own rate `p_i / reference`: the same holds with
//! `missing / s` replaced by the missing pages' share of the references,
//! kept exact in integer weights, and the page a fault is on drawn by
//! weight.
//!
//! With a bulk store in front of the drives (Multics), every page freed
//! goes to it, and its oldest pages go on to the drives when it is full.

use super::memory::{
    Effect, Governor, Manager, MemoryEvent, MemoryState, MemoryStreams, Processes, View,
};
use super::paging::{Counts, FreePool};
use super::{
    Burst, BurstKind, LONGEST_SAMPLE, Locality, Pages, PerProcess, Phases, Placement, ProcessTable,
    SimTime, Source, State, Stream, System, VecDeque,
};
use crate::system::free_list::{FreeList, Linked, Links};
use crate::system::{ClockDaemon, Pageout, Paging, Pattern, ReferenceBits};
use rand::RngExt;

mod calls;
#[cfg(debug_assertions)]
mod checks;
mod text;

pub(super) use calls::user_area_bytes;
pub(super) use text::SharedText;

/// No frame, no slot.
const NIL: u32 = u32::MAX;

/// How often the pageout daemon starts: once a second, when the clock
/// calls 3BSD's `vmmeter`. Each start gives the daemon the frames it may
/// scan in the period (`ClockDaemon::scan_budget`, from rates per
/// second), and updates 3BSD's meters (`VmMeter::tick`), whose averages
/// and decay are 3BSD's once-a-second figures: another period would need
/// those restated per period.
pub(super) const PAGEOUT_PERIOD: SimTime = SimTime::from_secs(1);

/// Whose page a frame holds or held: a process, a class's shared text, or
/// nobody. Packed in a `u32` (the top bit marks a text), so that a frame
/// stays small; [`FrameOwner::whose`] unpacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FrameOwner(u32);

/// An owner of a frame, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Whose {
    /// The process in this slot.
    Process(usize),
    /// The shared text of this class.
    Text(usize),
}

impl FrameOwner {
    /// The bit that marks a class's text.
    const TEXT: u32 = 1 << 31;
    /// Nobody: a frame whose page is gone for good.
    const NOBODY: FrameOwner = FrameOwner(u32::MAX);

    /// The process in slot `pid`.
    fn process(pid: usize) -> FrameOwner {
        let raw = u32::try_from(pid).expect("fewer than 2^31 processes");
        assert!(raw < Self::TEXT, "fewer than 2^31 processes");
        FrameOwner(raw)
    }

    /// The shared text of `class`.
    fn text(class: usize) -> FrameOwner {
        let raw = u32::try_from(class).expect("fewer than 2^31 classes");
        assert!(raw < Self::TEXT - 1, "fewer than 2^31 - 1 classes");
        FrameOwner(Self::TEXT | raw)
    }

    /// Whether the frame is nobody's.
    fn is_nobody(self) -> bool {
        self == Self::NOBODY
    }

    /// The process or text; a frame that is nobody's has neither.
    fn whose(self) -> Whose {
        assert!(!self.is_nobody(), "a frame that is nobody's has no owner");
        match self.0 & Self::TEXT {
            0 => Whose::Process(self.0 as usize),
            _ => Whose::Text((self.0 & !Self::TEXT) as usize),
        }
    }
}

/// Where a page of a process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pte {
    /// Never in memory.
    Untouched,
    /// In this frame.
    Resident(u32),
    /// In this frame on the free list, still valid: a fault reclaims it.
    Free(u32),
    /// Being read into this frame.
    Reading(u32),
    /// In the swap area.
    Out,
    /// On the bulk store, written there with this serial number (which
    /// tells the entry of its last write in the bulk store's age queue
    /// from entries of earlier writes).
    Bulk(u32),
}

/// A page's entry, packed in 32 bits: its kind in the top three, its
/// frame or serial number in the other 29. A page table's entries are
/// most of the model's memory at scale, and the fewer bytes they take
/// the more of them the caches hold (docs/PERFORMANCE.md, "Entries of 8
/// bytes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PackedPte(u32);

impl PackedPte {
    /// The frame and serial numbers an entry holds: fewer than 2^29
    /// (`Frames::new` and the bulk store's serials keep within it).
    const NUMBERS: u32 = (1 << 29) - 1;

    fn pack(pte: Pte) -> PackedPte {
        let (kind, number) = match pte {
            Pte::Untouched => (0, 0),
            Pte::Resident(f) => (1, f),
            Pte::Free(f) => (2, f),
            Pte::Reading(f) => (3, f),
            Pte::Out => (4, 0),
            Pte::Bulk(serial) => (5, serial),
        };
        assert!(number <= Self::NUMBERS, "a frame or serial of 29 bits");
        PackedPte(kind << 29 | number)
    }

    fn unpack(self) -> Pte {
        let number = self.0 & Self::NUMBERS;
        match self.0 >> 29 {
            0 => Pte::Untouched,
            1 => Pte::Resident(number),
            2 => Pte::Free(number),
            3 => Pte::Reading(number),
            4 => Pte::Out,
            _ => Pte::Bulk(number),
        }
    }
}

/// A page's entry, and its index in its table's `slots` (`NIL` outside
/// the set). A page coming in or leaving memory reads and writes both, so
/// they lie side by side, 8 bytes: eight pages a line, where two arrays
/// would be two lines for every page.
#[derive(Clone, Copy, Debug)]
struct PageEntry {
    pte: PackedPte,
    slot: u32,
}

/// A process's page table and its place in its phase model.
///
/// Laid out by hand: what a page coming in or leaving memory, a dispatch
/// and a fault read lie in the first cache line; what the end of a burst,
/// klustering, page-fault frequency and nested localities read in the
/// second; what only shared texts read after them. With thousands of
/// processes a table is rarely in the cache when its process is next at a
/// fault, and each line it spans is a miss.
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(super) struct PageTable {
    /// Each page's entry and place in the set.
    pages: Box<[PageEntry]>,
    /// The pages of the current locality set, the resident ones first.
    slots: Box<[u32]>,
    /// How many of the set's pages are resident (the first in `slots`).
    valid: u32,
    /// The page of the pending fault.
    faulting: u32,
    /// The set's missing pages when the pending fault was drawn.
    drawn_missing: u32,
    /// The processor time of its owner at which the phase ends (it began
    /// at its `Reach::phase_start`).
    phase_end: SimTime,
    /// Under a non-uniform pattern: the weights of the set's pages by
    /// position from its first page, their sum, the set's first page, and
    /// the weights of the missing ones.
    weighted: Option<Box<Weighted>>,
    /// The time up to which its processor time has been added to the
    /// exposure of its set's text pages.
    exposed_to: SimTime,
    /// Its owner's processor time at its last fault (page-fault
    /// frequency).
    last_fault: SimTime,
    /// With nested localities: the processor time at which the current
    /// region ends (0 before the first).
    region_end: SimTime,
    /// Pages read in with it, each with its frame (klustering).
    klustered: Vec<(u32, u32)>,
    /// With nested localities: the first page of the current region.
    region_first: u32,
    /// The set's pages of its class's shared text, as ranges of text
    /// pages (at most two: a set wraps round the image's end).
    text_ranges: Vec<(u32, u32)>,
}

// The layout the comment above describes.
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<PageEntry>() == 8);
    assert!(size_of::<PageTable>() == 192);
    assert!(offset_of!(PageTable, weighted) + 8 <= 64);
    assert!(offset_of!(PageTable, exposed_to) == 64);
    assert!(offset_of!(PageTable, region_first) + 4 <= 128);
};

/// What the hand reads of a process to decide whether one of its pages
/// was referenced: where its locality set lies and when its phase began.
/// These are packed apart from its page table, in a table of their own:
/// the hand passes the frames of owners at random, and a table of
/// thousands of these stays in the cache where the page tables do not.
#[derive(Clone, Copy, Debug, Default)]
struct Reach {
    /// The set's first page, its length in pages from there (wrapping
    /// round the image's `pages`) and the image's pages: no set before
    /// the first phase.
    first: u32,
    set: u32,
    pages: u32,
    /// Whether its pattern is non-uniform (its page table's weights give
    /// each page's rate).
    weighted: bool,
    /// Under a uniform pattern, the mean processor time between
    /// references to a page of the set.
    mean: f64,
    /// Its owner's processor time at which the phase began.
    phase_start: SimTime,
}

impl Reach {
    /// Whether private `page` is in the set (the page table's `in_set`,
    /// without reading the table).
    #[inline]
    fn holds(&self, page: u32) -> bool {
        self.set > 0 && (page + self.pages - self.first) % self.pages < self.set
    }
}

/// The references of a non-uniform pattern: page `first + i` of the set
/// is referenced at the rate `weights[i] / (total · reference)`.
#[derive(Debug)]
struct Weighted {
    weights: std::sync::Arc<[u64]>,
    total: u64,
    first: u32,
    missing: Fenwick,
}

/// Sums of integer weights by position, updated and searched in
/// O(log n) (a Fenwick tree).
#[derive(Debug, Default)]
struct Fenwick {
    /// 1-based: `tree[i]` holds the sum over positions `i - lowbit(i)` to
    /// `i - 1`.
    tree: Vec<u64>,
    total: u64,
}

impl Fenwick {
    /// The tree of `values`, in O(n).
    fn build(values: impl Iterator<Item = u64>) -> Fenwick {
        let mut tree = vec![0];
        tree.extend(values);
        let n = tree.len();
        for i in 1..n {
            let up = i + (i & i.wrapping_neg());
            if up < n {
                tree[up] += tree[i];
            }
        }
        let mut f = Fenwick { tree, total: 0 };
        f.total = f.prefix(n - 1);
        f
    }

    /// The sum over positions `0..i`.
    fn prefix(&self, mut i: usize) -> u64 {
        let mut sum = 0;
        while i > 0 {
            sum += self.tree[i];
            i &= i - 1;
        }
        sum
    }

    fn add(&mut self, at: usize, weight: u64) {
        self.total += weight;
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] += weight;
            i += i & i.wrapping_neg();
        }
    }

    fn sub(&mut self, at: usize, weight: u64) {
        self.total -= weight;
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] -= weight;
            i += i & i.wrapping_neg();
        }
    }

    /// The position whose span holds `u`, for `u < total`: the first
    /// position whose prefix sum through it exceeds `u`.
    fn find(&self, mut u: u64) -> usize {
        debug_assert!(u < self.total);
        let mut at = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = at + step;
            if next < self.tree.len() && self.tree[next] <= u {
                u -= self.tree[next];
                at = next;
            }
            step /= 2;
        }
        at
    }
}

impl PageTable {
    /// Makes the table one of `pages` pages, none of them touched, none
    /// in a set.
    fn untouched(&mut self, pages: usize) {
        let untouched = PageEntry {
            pte: PackedPte::pack(Pte::Untouched),
            slot: NIL,
        };
        self.pages = vec![untouched; pages].into_boxed_slice();
    }

    /// The number of pages of the image.
    fn len(&self) -> usize {
        self.pages.len()
    }

    /// The entry of `page`.
    #[inline]
    pub(super) fn entry(&self, page: usize) -> Pte {
        self.pages[page].pte.unpack()
    }

    /// The entry of `page`, if the image has it.
    fn get(&self, page: usize) -> Option<Pte> {
        self.pages.get(page).map(|p| p.pte.unpack())
    }

    /// Makes `pte` the entry of `page`.
    #[inline]
    fn set_entry(&mut self, page: usize, pte: Pte) {
        self.pages[page].pte = PackedPte::pack(pte);
    }

    /// The entries of every page, in order.
    fn entries(&self) -> impl Iterator<Item = Pte> + '_ {
        self.pages.iter().map(|p| p.pte.unpack())
    }

    /// The index in `slots` of `page`, `NIL` outside the set.
    #[inline]
    fn slot_of(&self, page: u32) -> u32 {
        self.pages[page as usize].slot
    }

    /// Makes the `set` pages from `first` on (wrapping round the image's
    /// `pages`) the current set: its private pages in the slots, the valid
    /// ones (those whose frame `valid` says so) first, and its pages below
    /// `text_pages` as runs of the shared text.
    fn lay_out_set(
        &mut self,
        first: u32,
        set: u32,
        pages: u32,
        text_pages: u32,
        valid: impl Fn(u32) -> bool,
    ) {
        for &page in &self.slots {
            self.pages[page as usize].slot = NIL;
        }
        // The slots' allocation is kept from set to set: a set of the same
        // length, the common case, allocates nothing.
        let mut slots = std::mem::take(&mut self.slots).into_vec();
        slots.clear();
        self.text_ranges.clear();
        self.valid = 0;
        for i in 0..set {
            let page = (first + i) % pages;
            if page < text_pages {
                // The text's pages, in runs of consecutive pages.
                match self.text_ranges.last_mut() {
                    Some((_, end)) if *end == page => *end += 1,
                    _ => self.text_ranges.push((page, page + 1)),
                }
                continue;
            }
            self.pages[page as usize].slot = slots.len() as u32;
            slots.push(page);
        }
        self.slots = slots.into_boxed_slice();
        debug_assert!(self.text_ranges.len() <= 2, "a set wraps round once");
        for i in 0..self.slots.len() as u32 {
            let page = self.slots[i as usize];
            if let Pte::Resident(f) = self.entry(page as usize)
                && valid(f)
            {
                self.swap_slots(i, self.valid);
                self.valid += 1;
            }
        }
    }

    /// The set's pages not resident.
    fn missing(&self) -> u64 {
        (self.slots.len() as u32 - self.valid).into()
    }

    /// The pages being read in with the faulted one (debug checks).
    #[cfg(debug_assertions)]
    pub(super) fn klustered_count(&self) -> u64 {
        self.klustered.len() as u64
    }

    /// Whether `page` is in the current locality set.
    fn in_set(&self, page: u32) -> bool {
        self.slot_of(page) != NIL
    }

    /// Moves `page`, of the set, to the resident part of `slots`.
    fn mark_resident(&mut self, page: u32) {
        let at = self.slot_of(page);
        if at == NIL {
            return;
        }
        assert!(at >= self.valid, "a page comes in once");
        self.swap_slots(at, self.valid);
        self.valid += 1;
        if let Some(i) = self.position(page) {
            let w = self.weighted.as_mut().expect("weighted");
            w.missing.sub(i, w.weights[i]);
        }
    }

    /// Moves `page`, of the set, to the missing part of `slots`.
    fn mark_missing(&mut self, page: u32) {
        let at = self.slot_of(page);
        if at == NIL {
            return;
        }
        assert!(at < self.valid, "a page goes out once");
        self.valid -= 1;
        self.swap_slots(at, self.valid);
        if let Some(i) = self.position(page) {
            let w = self.weighted.as_mut().expect("weighted");
            w.missing.add(i, w.weights[i]);
        }
    }

    /// Under a non-uniform pattern, the position of `page`, of the set,
    /// from the set's first page.
    fn position(&self, page: u32) -> Option<usize> {
        let w = self.weighted.as_ref()?;
        let pages = self.len() as u32;
        Some(((page + pages - w.first) % pages) as usize)
    }

    /// The mean processor time between references to `page`, of the set,
    /// references coming one every `reference` on average.
    fn mean_between_references(&self, page: u32, phases: &Phases) -> f64 {
        match (&self.weighted, self.position(page)) {
            (Some(w), Some(i)) => phases.reference * w.total as f64 / w.weights[i] as f64,
            _ => uniform_mean_between_references(phases),
        }
    }

    /// The mean processor time to the next fault: to the next reference to
    /// a missing page of the set, `missing` of them under a uniform
    /// pattern.
    fn mean_time_between_faults(&self, phases: &Phases, missing: u64) -> f64 {
        match &self.weighted {
            None => phases.mean_time_between_faults(phases.set - missing),
            Some(w) if w.missing.total == 0 => f64::INFINITY,
            Some(w) => phases.reference * w.total as f64 / w.missing.total as f64,
        }
    }

    /// The missing page the next fault is on, of `missing` in the set:
    /// drawn uniformly, or by its weight, with `rng`; a private page, or a
    /// page of the class's shared `text`.
    fn draw_missing(&self, missing: u64, text: Option<&SharedText>, rng: &mut Stream) -> Missing {
        let page = match &self.weighted {
            None => {
                let k = rng.random_range(0..missing as u32);
                if k >= self.missing() as u32 {
                    let text = text.expect("a missing text page");
                    let k = u64::from(k) - self.missing();
                    return Missing::Text(text.nth_missing(&self.text_ranges, k));
                }
                self.slots[(self.valid + k) as usize]
            }
            Some(w) => {
                let i = w.missing.find(rng.random_range(0..w.missing.total));
                (w.first + i as u32) % self.len() as u32
            }
        };
        debug_assert!(self.slot_of(page) >= self.valid, "a missing page");
        Missing::Private(page)
    }

    fn swap_slots(&mut self, a: u32, b: u32) {
        self.slots.swap(a as usize, b as usize);
        self.pages[self.slots[a as usize] as usize].slot = a;
        self.pages[self.slots[b as usize] as usize].slot = b;
    }
}

/// A missing page of a locality set.
enum Missing {
    /// The process's own page.
    Private(u32),
    /// A page of its class's shared text.
    Text(u32),
}

/// What a frame holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Free,
    Resident,
    Reading,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Whose page it holds or held.
    owner: FrameOwner,
    page: u32,
    use_: Use,
    /// Referenced since the hand last cleared the bit, as far as decided.
    referenced: bool,
    /// Usable without a fault: resident and, under simulated reference
    /// bits, not invalidated by the hand since.
    valid: bool,
    /// The owner's processor time at the last reference, as far as
    /// decided.
    last_ref: SimTime,
    modified: bool,
    /// References are decided up to this much processor time of the owner
    /// (shared text: up to this exposure).
    decided: SimTime,
    /// The free list's links.
    links: Links,
}

const _: () = assert!(std::mem::size_of::<Frame>() == 40);

impl Linked for Frame {
    fn links(&self) -> Links {
        self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// The pages on a bulk store in front of the paging drives (Multics's
/// paging device): every page that leaves memory is written there, and
/// the oldest pages are pushed on to the drives when it is full.
#[derive(Debug, Default)]
pub(super) struct BulkQueue {
    /// Pages held.
    used: u64,
    /// An entry (process, page, serial) per page written, oldest first;
    /// an entry whose page has left since, or was written again, is
    /// skipped, and dropped when the queue is compacted.
    age: VecDeque<(FrameOwner, u32, u32)>,
    /// The serial number of the next write. A page's entry holds it in 29
    /// bits: when the serials have run through them, the writes of the
    /// pages still on the store are numbered anew from 0 in their order
    /// (`Frames::renumber_bulk`), fewer than 2^27 (the store's largest,
    /// checked with the scenario), so that no serial is held twice.
    serial: u32,
}

/// The frames of user memory, the free list through them and the hand.
#[derive(Debug)]
pub(super) struct Frames {
    frames: Vec<Frame>,
    hand: u32,
    free: FreeList,
    /// Frames the daemon may still look at before its next start.
    budget: u64,
    /// Draws deciding references to resident pages.
    references: Stream,
    /// The bulk store's pages, when there is one.
    bulk: BulkQueue,
    /// Each class's shared text (empty for a class without one).
    texts: Vec<SharedText>,
    /// Each process's page table and place in its phase model, by its
    /// slot.
    pub(super) tables: PerProcess<PageTable>,
    /// What the hand reads of each process, by its slot.
    reach: PerProcess<Reach>,
}

impl Frames {
    /// `count` free frames, owned by nobody, on the free list in order,
    /// and shared texts of `texts` pages.
    pub(super) fn new(count: u64, texts: impl Iterator<Item = u64>, references: Stream) -> Frames {
        let count = u32::try_from(count)
            .ok()
            .filter(|&count| count <= PackedPte::NUMBERS + 1)
            .expect("at most 2^29 user frames (checked with the scenario)");
        let mut frames = Frames {
            frames: vec![
                Frame {
                    owner: FrameOwner::NOBODY,
                    page: 0,
                    use_: Use::Free,
                    referenced: false,
                    valid: false,
                    last_ref: SimTime::ZERO,
                    modified: false,
                    decided: SimTime::ZERO,
                    links: Links::NONE,
                };
                count as usize
            ],
            hand: 0,
            free: FreeList::new(),
            budget: 0,
            references,
            bulk: BulkQueue::default(),
            texts: texts.map(SharedText::new).collect(),
            tables: PerProcess::default(),
            reach: PerProcess::default(),
        };
        for f in 0..count {
            frames.push_back(f);
        }
        frames
    }

    /// `pid` is a new process: an empty page table, no set yet.
    pub(super) fn enter(&mut self, pid: usize) {
        self.tables.insert(pid, PageTable::default());
        self.reach.insert(pid, Reach::default());
    }

    fn push_back(&mut self, f: u32) {
        self.free.push_back(&mut self.frames, f);
    }

    fn push_front(&mut self, f: u32) {
        self.free.push_front(&mut self.frames, f);
    }

    fn unlink(&mut self, f: u32) {
        self.free.unlink(&mut self.frames, f);
    }

    /// The frame at the head of the free list, taken off it.
    fn pop_front(&mut self) -> Option<u32> {
        self.free.pop_front(&mut self.frames)
    }

    /// The number of frames on the free list (debug checks).
    #[cfg(debug_assertions)]
    fn free_count(&self) -> u64 {
        self.free
            .members(&self.frames)
            .iter()
            .filter(|&&on| on)
            .count() as u64
    }
}

impl Processes<'_> {
    /// Whether a hand passes over the pages of `owner`: a process on a
    /// processor, or a class's text while a process of the class is on one.
    #[inline]
    fn on_processor(&self, owner: Whose) -> bool {
        match owner {
            Whose::Process(pid) => self.procs.state(pid) == State::Running,
            Whose::Text(class) => self.class_on_processor(class),
        }
    }
}

/// The phase model of `class` in `sys`.
pub(super) fn phases_of_class(sys: &System, class: usize) -> &Phases {
    sys.classes[class]
        .locality
        .as_ref()
        .and_then(Locality::phases)
        .expect("the clock needs the phase model")
}

/// The mean processor time between references to a page of a set under
/// a uniform pattern: a reference every `reference`, spread over `set`
/// pages.
fn uniform_mean_between_references(phases: &Phases) -> f64 {
    phases.reference * phases.set as f64
}

impl Counts<'_> {
    /// The pages held by `owner`, a process or a class's text.
    #[inline]
    fn held_by(&mut self, owner: FrameOwner) -> &mut Pages {
        match owner.whose() {
            Whose::Process(pid) => &mut self.of[pid].held,
            Whose::Text(class) => &mut self.texts[class].held,
        }
    }
}

/// The paging policy pages are freed under, and what freeing them leaves
/// for the model to do: the pages taken, and the page writes, by device in
/// the order they were made.
pub(super) struct Freeing<'m> {
    pub(super) paging: &'m Paging,
    /// The bulk store sized by capacity every page leaving memory is
    /// written to, and that capacity.
    pub(super) bulk: Option<(usize, u64)>,
    manager: Manager<'m>,
    streams: &'m mut MemoryStreams,
    pub(super) stolen: u64,
    /// The page writes still to issue, this freeing's from `from` on.
    pub(super) writes: &'m mut Vec<usize>,
    from: usize,
}

/// What a freeing did: the pages it took, and where its page writes lie
/// among those still to issue (`from..to`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Freed {
    pub(super) stolen: u64,
    pub(super) from: u32,
    pub(super) to: u32,
}

impl<'m> Freeing<'m> {
    /// Freeing under `manager`, drawing drives and dirty pages from
    /// `streams`, its writes added to `writes` (those still to issue; a
    /// buffer reused so that freeing allocates nothing).
    pub(super) fn new(
        manager: Manager<'m>,
        streams: &'m mut MemoryStreams,
        writes: &'m mut Vec<usize>,
    ) -> Freeing<'m> {
        Freeing {
            from: writes.len(),
            paging: manager.paging().expect("pages are freed only under paging"),
            bulk: manager.paging().and_then(bulk_capacity),
            manager,
            streams,
            stolen: 0,
            writes,
        }
    }

    /// A paging drive, drawn if there are several.
    pub(super) fn drive(&mut self) -> usize {
        self.streams.swap_device(self.manager)
    }

    /// The stream whether a page taken is modified is drawn from.
    pub(super) fn dirty(&mut self) -> &mut Stream {
        &mut self.streams.dirty
    }

    /// A write to a paging drive.
    pub(super) fn write_to_drive(&mut self) {
        let drive = self.drive();
        self.writes.push(drive);
    }

    /// What the freeing did.
    pub(super) fn done(self) -> Freed {
        let index = |at: usize| u32::try_from(at).expect("page writes fit a u32");
        Freed {
            stolen: self.stolen,
            from: index(self.from),
            to: index(self.writes.len()),
        }
    }
}

/// The bulk store in front of the drives of `sys` if it has one sized by
/// capacity, and that capacity (under frames it is always so sized; under
/// replacement by process it may instead take a fraction of the pages).
fn bulk_capacity(paging: &Paging) -> Option<(usize, u64)> {
    let bulk = paging.bulk_store.as_ref()?;
    let Placement::Capacity(capacity) = bulk.placement else {
        return None;
    };
    Some((bulk.device, capacity))
}

/// How a page read comes into its frame: referenced (the faulted page)
/// or not (a page klustered with it), modified or not, at what processor
/// time of its owner.
#[derive(Clone, Copy, Debug)]
struct PageIn {
    referenced: bool,
    modified: bool,
    at: SimTime,
}

/// Memory as frames on the frames and page tables alone, told what it
/// needs of the rest: replacement (the hand, reference bits, freeing,
/// the bulk store), page-ins (reclaims, revalidations, frames read into
/// and filled, klustering) and phases.
impl Frames {
    /// Makes `pte` the entry of `page` of `owner`, a process or a class's
    /// text.
    #[inline]
    fn set_entry(&mut self, owner: FrameOwner, page: u32, pte: Pte) {
        match owner.whose() {
            Whose::Process(pid) => self.tables[pid].set_entry(page as usize, pte),
            Whose::Text(class) => self.texts[class].entries[page as usize] = pte,
        }
    }

    /// The entry of `page` of `owner`, a process or a class's text.
    #[inline]
    fn entry_of(&self, owner: FrameOwner, page: u32) -> Pte {
        match owner.whose() {
            Whose::Process(pid) => self.tables[pid].entry(page as usize),
            Whose::Text(class) => self.texts[class].entries[page as usize],
        }
    }

    /// Accounts for frame `f`, just taken off the free list: a page it still
    /// held is lost to its owner for good.
    #[inline]
    fn take_free_frame(&mut self, f: u32, counts: &mut Counts) {
        counts.pool.frames -= 1;
        let frame = self.frames[f as usize];
        if frame.owner.is_nobody() {
            counts.pool.anonymous -= 1;
        } else {
            counts.held_by(frame.owner).reclaimable -= 1;
            self.set_entry(frame.owner, frame.page, Pte::Out);
        }
    }

    /// The hand goes round while free memory is below `lotsfree` and the
    /// daemon's budget lasts (moved by a fault, without a budget, for at
    /// most two revolutions): a referenced page has its bit cleared, an
    /// unreferenced one is freed (written first if modified). Frames that
    /// are free, being read into, or held by a process on a processor are
    /// passed over: the daemon, a process itself, runs when they are not
    /// running.
    ///
    /// With two hands, the front hand clears the bit of the page it looks
    /// at, and the back hand, `handspread` frames behind, frees the page it
    /// looks at if it was not referenced since the front hand passed.
    fn hand(
        &mut self,
        clock: &ClockDaemon,
        processes: &Processes,
        counts: &mut Counts,
        freeing: &mut Freeing,
    ) {
        let count = self.frames.len() as u32;
        // The fault handler has no budget, only a bound: in two revolutions
        // the hand frees every page it may take.
        let mut steps = match clock.pageout {
            Pageout::Daemon => self.budget,
            Pageout::Fault => 2 * u64::from(count),
        };
        let simulated = clock.reference_bits == ReferenceBits::Simulated;
        while steps > 0 && counts.pool.frames < clock.lotsfree {
            steps -= 1;
            if clock.pageout == Pageout::Daemon {
                self.budget -= 1;
            }
            let f = self.hand;
            self.hand = (f + 1) % count;
            let free = match clock.handspread {
                // One hand clears the bit of a referenced page and frees
                // an unreferenced one.
                None => (self.open_at_hand(f, processes)
                    && !self.clear_reference(f, simulated, processes))
                .then_some(f),
                // The front hand clears; the back hand frees what was not
                // referenced since, and leaves the bit of what was.
                Some(spread) => {
                    if self.open_at_hand(f, processes) {
                        self.clear_reference(f, simulated, processes);
                    }
                    let back = (f + count - spread as u32) % count;
                    (self.open_at_hand(back, processes)
                        && !self.referenced_since_cleared(back, simulated, processes))
                    .then_some(back)
                }
            };
            if let Some(f) = free {
                self.free_frame(f, processes, counts, freeing);
            }
        }
    }

    /// Whether a hand may take the page in frame `f`: a resident page
    /// whose owner is not on a processor.
    #[inline]
    fn open_at_hand(&self, f: u32, processes: &Processes) -> bool {
        let frame = &self.frames[f as usize];
        frame.use_ == Use::Resident && !processes.on_processor(frame.owner.whose())
    }

    /// Whether the page in frame `f` was referenced since its bit was last
    /// cleared (hardware bits: decided up to now; simulated: whether it is
    /// valid again).
    #[inline]
    fn referenced_since_cleared(&mut self, f: u32, simulated: bool, processes: &Processes) -> bool {
        if simulated {
            return self.frames[f as usize].valid;
        }
        self.decide_references(f, processes);
        self.frames[f as usize].referenced
    }

    /// Clears the reference bit of the page in frame `f` (simulated bits:
    /// invalidates the page, so that its next reference traps), saying
    /// whether it was set.
    #[inline]
    fn clear_reference(&mut self, f: u32, simulated: bool, processes: &Processes) -> bool {
        let was = self.referenced_since_cleared(f, simulated, processes);
        let frame = &mut self.frames[f as usize];
        frame.referenced = false;
        if simulated && was {
            frame.valid = false;
            let (owner, page) = (frame.owner, frame.page);
            match owner.whose() {
                Whose::Process(pid) => self.tables[pid].mark_missing(page),
                Whose::Text(class) => self.texts[class].mark_missing(page),
            }
        }
        was
    }

    /// Decides whether the page in frame `f` was referenced since it was
    /// last decided, from its owner's processor time since then with the
    /// page in its locality set, and if so when last: the time back from
    /// now to the last reference of a Poisson stream is exponential, and
    /// there was one in the exposure if that time is shorter.
    fn decide_references(&mut self, f: u32, processes: &Processes) {
        let frame = self.frames[f as usize];
        let pid = match frame.owner.whose() {
            Whose::Text(class) => {
                self.decide_text_references(f, processes.phases_of_class(class));
                return;
            }
            Whose::Process(pid) => pid,
        };
        let reach = self.reach[pid];
        let now = processes.cpu_user(pid);
        debug_assert_eq!(
            reach.holds(frame.page),
            self.tables[pid].in_set(frame.page),
            "the hand's view of the set is the page table's"
        );
        if reach.holds(frame.page) {
            let since = frame.decided.max(reach.phase_start);
            let exposed = now.saturating_sub(since).as_secs_f64();
            if exposed > 0.0 {
                let mean = if reach.weighted {
                    let phases = processes.phases_of_class(processes.procs[pid].class);
                    self.tables[pid].mean_between_references(frame.page, phases)
                } else {
                    reach.mean
                };
                let e: f64 =
                    rand_distr::Distribution::sample(&rand_distr::Exp1, &mut self.references);
                let age = mean * e;
                if age < exposed {
                    let frame = &mut self.frames[f as usize];
                    frame.referenced = true;
                    frame.last_ref = now.saturating_sub(SimTime::from_secs_f64(age));
                }
            }
        }
        self.frames[f as usize].decided = now;
    }

    /// Frees the resident pages of `pid` last referenced before `since` of
    /// its processor time, deciding their references up to now.
    fn free_unreferenced_since(
        &mut self,
        pid: usize,
        since: SimTime,
        processes: &Processes,
        counts: &mut Counts,
        freeing: &mut Freeing,
    ) {
        for page in 0..self.tables[pid].len() {
            let Pte::Resident(f) = self.tables[pid].entry(page) else {
                continue;
            };
            self.decide_references(f, processes);
            if self.frames[f as usize].last_ref < since {
                self.free_frame(f, processes, counts, freeing);
            }
        }
    }

    /// Frees the page in frame `f`: to the tail of the free list, still
    /// valid if the system reclaims, after a write if it is modified; with
    /// a bulk store, every page is written to it.
    fn free_frame(
        &mut self,
        f: u32,
        processes: &Processes,
        counts: &mut Counts,
        freeing: &mut Freeing,
    ) {
        freeing.stolen += 1;
        let (owner, page) = {
            let frame = &self.frames[f as usize];
            (frame.owner, frame.page)
        };
        let modified = self.unmap_frame(f, freeing.paging.reclaim, counts);
        match freeing.bulk {
            Some((bulk, capacity)) => {
                self.write_to_bulk(owner, page, capacity, processes, freeing);
                freeing.writes.push(bulk);
            }
            None if modified => freeing.write_to_drive(),
            None => {}
        }
    }

    /// `page` of `owner`, just freed from memory, goes on the bulk store;
    /// while the store holds more than `capacity` pages, its oldest go on
    /// to the drives, a write each.
    fn write_to_bulk(
        &mut self,
        owner: FrameOwner,
        page: u32,
        capacity: u64,
        processes: &Processes,
        freeing: &mut Freeing,
    ) {
        let serial = self.bulk.serial;
        assert_eq!(
            self.entry_of(owner, page),
            Pte::Out,
            "a page freed to a bulk store is not reclaimable"
        );
        self.set_entry(owner, page, Pte::Bulk(serial));
        let bulk = &mut self.bulk;
        bulk.serial = serial + 1;
        bulk.used += 1;
        bulk.age.push_back((owner, page, serial));
        while self.bulk.used > capacity {
            let (owner, page, serial) = self
                .bulk
                .age
                .pop_front()
                .expect("pages on the bulk store have entries in its age queue");
            if !on_bulk(
                processes.procs,
                &self.tables,
                &self.texts,
                (owner, page, serial),
            ) {
                continue;
            }
            self.set_entry(owner, page, Pte::Out);
            self.bulk.used -= 1;
            freeing.write_to_drive();
        }
        if self.bulk.age.len() as u64 > 2 * capacity.max(1024) {
            self.drop_stale_bulk_entries(processes);
        }
        if self.bulk.serial > PackedPte::NUMBERS {
            self.renumber_bulk(processes);
        }
    }

    /// Drops the entries of the bulk store's age queue whose pages are no
    /// longer there, or were written again since.
    fn drop_stale_bulk_entries(&mut self, processes: &Processes) {
        let (procs, tables, texts) = (processes.procs, &self.tables, &self.texts);
        self.bulk
            .age
            .retain(|&entry| on_bulk(procs, tables, texts, entry));
    }

    /// Numbers the writes of the pages on the bulk store anew from 0, in
    /// their order, once the serials have run through the 29 bits an
    /// entry holds: each page's entry takes its write's new number.
    #[cold]
    fn renumber_bulk(&mut self, processes: &Processes) {
        self.drop_stale_bulk_entries(processes);
        let mut age = std::mem::take(&mut self.bulk.age);
        for (serial, (owner, page, old)) in age.iter_mut().enumerate() {
            *old = u32::try_from(serial).expect("fewer than 2^27 pages on the bulk store");
            self.set_entry(*owner, *page, Pte::Bulk(*old));
        }
        self.bulk.serial = u32::try_from(age.len()).expect("fewer than 2^27 pages");
        self.bulk.age = age;
    }

    /// Takes the resident pages of `pid` out of their frames (`unmap_frame`),
    /// saying how many were modified.
    fn unmap_process(&mut self, pid: usize, reclaim: bool, counts: &mut Counts) -> u64 {
        let mut modified = 0;
        for page in 0..self.tables[pid].len() {
            if let Pte::Resident(f) = self.tables[pid].entry(page) {
                modified += u64::from(self.unmap_frame(f, reclaim, counts));
            }
        }
        modified
    }

    /// Takes the page out of frame `f` onto the tail of the free list,
    /// still valid there if the system `reclaim`s; says whether it was
    /// modified (and so must be written).
    fn unmap_frame(&mut self, f: u32, reclaim: bool, counts: &mut Counts) -> bool {
        let frame = &mut self.frames[f as usize];
        let (owner, page, modified, valid) = (frame.owner, frame.page, frame.modified, frame.valid);
        frame.use_ = Use::Free;
        frame.modified = false;
        frame.valid = false;
        if valid {
            match owner.whose() {
                Whose::Process(pid) => self.tables[pid].mark_missing(page),
                Whose::Text(class) => self.texts[class].mark_missing(page),
            }
        }
        let held = counts.held_by(owner);
        held.resident -= 1;
        if reclaim {
            held.reclaimable += 1;
            self.set_entry(owner, page, Pte::Free(f));
        } else {
            self.set_entry(owner, page, Pte::Out);
            self.frames[f as usize].owner = FrameOwner::NOBODY;
            counts.pool.anonymous += 1;
        }
        self.push_back(f);
        counts.pool.frames += 1;
        modified
    }

    /// Simulated reference bits: `pid` touched `page`, which the hand had
    /// invalidated in frame `f`; the trap makes it valid again, without I/O.
    fn revalidate(&mut self, pid: usize, page: u32, f: u32) {
        let frame = &mut self.frames[f as usize];
        assert!(!frame.valid, "only an invalidated page traps");
        frame.valid = true;
        self.tables[pid].mark_resident(page);
    }

    /// `pid` takes back `page` from frame `f` on the free list at `vt` of
    /// its processor time.
    fn reclaim(&mut self, pid: usize, page: u32, f: u32, vt: SimTime, counts: &mut Counts) {
        self.unlink(f);
        counts.pool.frames -= 1;
        let frame = &mut self.frames[f as usize];
        frame.use_ = Use::Resident;
        frame.referenced = true;
        frame.valid = true;
        frame.last_ref = vt;
        frame.decided = vt;
        let held = &mut counts.of[pid].held;
        held.reclaimable -= 1;
        held.resident += 1;
        let pt = &mut self.tables[pid];
        pt.set_entry(page as usize, Pte::Resident(f));
        pt.mark_resident(page);
    }

    /// Frame `f`, just taken off the free list, is read into for `page` of
    /// `owner`.
    fn read_into(&mut self, f: u32, owner: FrameOwner, page: u32) {
        let frame = &mut self.frames[f as usize];
        (frame.owner, frame.page, frame.use_) = (owner, page, Use::Reading);
        self.set_entry(owner, page, Pte::Reading(f));
    }

    /// Makes `page` of `pid` resident in frame `f`, as `page_in` says.
    fn fill(&mut self, pid: usize, page: u32, f: u32, page_in: PageIn, counts: &mut Counts) {
        let frame = &mut self.frames[f as usize];
        frame.use_ = Use::Resident;
        frame.referenced = page_in.referenced;
        frame.valid = true;
        frame.last_ref = page_in.at;
        frame.modified = page_in.modified;
        frame.decided = page_in.at;
        counts.of[pid].held.resident += 1;
        let pt = &mut self.tables[pid];
        pt.set_entry(page as usize, Pte::Resident(f));
        pt.mark_resident(page);
    }

    /// Klustering: takes free frames for the other pages of the faulted
    /// page's aligned cluster of `k` pages (in an image of `pages`) that
    /// are in the swap area too, and says how many; they come in with it.
    fn kluster(&mut self, pid: usize, k: u32, pages: u32, counts: &mut Counts) -> u64 {
        let page = self.tables[pid].faulting;
        let first = page - page % k;
        let last = (first + k).min(pages);
        let mut extra = 0;
        for other in first..last {
            if other == page || self.tables[pid].entry(other as usize) != Pte::Out {
                continue;
            }
            let Some(f) = self.pop_front() else {
                break;
            };
            self.take_free_frame(f, counts);
            self.read_into(f, FrameOwner::process(pid), other);
            self.tables[pid].klustered.push((other, f));
            extra += 1;
        }
        extra
    }

    /// `pid` moves to its next phase at its current processor time: the
    /// references of the old set are decided up to now, and a new set of
    /// consecutive pages begins at a page drawn uniformly from `rng`, its
    /// length drawn from its class's phase lengths.
    fn new_phase(&mut self, pid: usize, processes: &Processes, rng: &mut Stream) {
        let resident: Vec<u32> = {
            let t = &self.tables[pid];
            t.slots[..t.valid as usize]
                .iter()
                .map(|&page| match t.entry(page as usize) {
                    Pte::Resident(f) => f,
                    other => {
                        unreachable!("a resident page of the set is in a frame, not {other:?}")
                    }
                })
                .collect()
        };
        for f in resident {
            self.decide_references(f, processes);
        }
        let p = &processes.procs[pid];
        let now = processes.cpu_user(pid);
        let phases = processes.phases_of_class(p.class);
        let (set, phase) = (phases.set as u32, phases.phase.clone());
        let weights = match &phases.pattern {
            Pattern::Uniform => None,
            Pattern::Zipf { weights, .. } => Some(weights.clone()),
        };
        let text_pages = self.texts.get(p.class).map_or(0, |t| t.entries.len()) as u32;
        let pt = &mut self.tables[pid];
        let pages = p.pages as u32;
        let first = match &phases.region {
            None => rng.random_range(0..pages),
            // Phases within phases: a set is drawn within the region, and
            // a new region over the image when the last has ended.
            Some(region) => {
                if now >= pt.region_end {
                    pt.region_first = rng.random_range(0..pages);
                    let length = region.phase.sample(rng).min(LONGEST_SAMPLE);
                    pt.region_end =
                        now + SimTime::from_secs_f64(length).max(SimTime::from_nanos(1));
                }
                let room = (region.pages - u64::from(set)) as u32;
                (pt.region_first + rng.random_range(0..=room)) % pages
            }
        };
        let length = phase.sample(rng).min(LONGEST_SAMPLE);
        let t = pt;
        let frames = &self.frames;
        t.lay_out_set(first, set, pages, text_pages, |f| frames[f as usize].valid);
        debug_assert!(
            weights.is_none() || t.text_ranges.is_empty(),
            "a non-uniform pattern has no shared text"
        );
        t.weighted = weights.map(|weights| {
            let missing = Fenwick::build((0..set).map(|i| {
                let page = (first + i) % pages;
                if t.slot_of(page) >= t.valid {
                    weights[i as usize]
                } else {
                    0
                }
            }));
            Box::new(Weighted {
                total: weights.iter().sum(),
                weights,
                first,
                missing,
            })
        });
        self.reach[pid] = Reach {
            first,
            set,
            pages,
            weighted: t.weighted.is_some(),
            mean: uniform_mean_between_references(phases),
            phase_start: now,
        };
        // A phase lasts at least a tick, so that the clock moves on, and
        // ends with its region.
        let length = SimTime::from_secs_f64(length).max(SimTime::from_nanos(1));
        t.phase_end = (now + length).min(match phases.region {
            Some(_) => t.region_end,
            None => SimTime::MAX,
        });
    }

    /// Gives back the frames of an exited process's `table`: its resident
    /// pages go to the head of the free list, owned by nobody, and its
    /// pages on the free list can no longer be reclaimed.
    pub(super) fn release(&mut self, table: &PageTable, pool: &mut FreePool) {
        for pte in table.entries() {
            match pte {
                Pte::Resident(f) => {
                    let frame = &mut self.frames[f as usize];
                    frame.use_ = Use::Free;
                    frame.owner = FrameOwner::NOBODY;
                    frame.modified = false;
                    frame.valid = false;
                    self.push_front(f);
                    pool.frames += 1;
                    pool.anonymous += 1;
                }
                Pte::Free(f) => {
                    self.frames[f as usize].owner = FrameOwner::NOBODY;
                    pool.anonymous += 1;
                }
                Pte::Reading(_) => unreachable!("a process waiting for a page does not exit"),
                Pte::Bulk(_) => self.bulk.used -= 1,
                Pte::Untouched | Pte::Out => {}
            }
        }
    }
}

/// Whether an entry of the bulk store's age queue stands for a page still
/// there: its process lives (or it is of a shared text), and the page's
/// last write has its serial.
fn on_bulk(
    procs: &ProcessTable,
    tables: &PerProcess<PageTable>,
    texts: &[SharedText],
    (owner, page, serial): (FrameOwner, u32, u32),
) -> bool {
    let page = page as usize;
    let entry = match owner.whose() {
        Whose::Process(pid) => procs.get(pid).and_then(|_| tables[pid].get(page)),
        Whose::Text(class) => texts.get(class).and_then(|t| t.entries.get(page).copied()),
    };
    entry == Some(Pte::Bulk(serial))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    pub(in crate::system::model) use crate::system::model::frames::calls::FrameCalls;
    use crate::system::model::{Context, Event, SystemModel};
    use crate::system::model::{Owner, OwnerKind, Streams};

    pub(in crate::system::model) const TEN_PAGE_SETS: &str = r#"
        name = "sets"
        [run]
        end_time = "10s"
        [system]
        quantum = "100ms"
        context_switch = "0s"
        [memory]
        policy = "paging"
        replacement = "clock"
        size = "64KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        rate = "1MB/s"
        fault_cpu = "0s"
        [users]
        terminals = 1
        think = { exp = { mean = "1s" } }
        commands = [{ class = "job", weight = 1 }]
        [[class]]
        name = "job"
        cpu = { exp = { mean = "1s" } }
        size = "40KiB"
        locality = { phases = { set = 10, phase = { det = { value = "100s" } }, reference = "1ms" } }
    "#;

    /// Runs `test` on a model of `text` with one process, spawned and off a
    /// processor, and the context of its simulation.
    fn with_process(text: &str, test: impl FnOnce(&mut SystemModel, &mut Context<Event>, usize)) {
        with_process_at(text, SimTime::ZERO, test);
    }

    /// Runs `test` as `with_process` does, the clock at `at`.
    pub(in crate::system::model) fn with_process_at(
        text: &str,
        at: SimTime,
        test: impl FnOnce(&mut SystemModel, &mut Context<Event>, usize),
    ) {
        let sys = crate::load_system("test.toml", text).unwrap();
        let streams = Streams::new(7, 0);
        let mut sim = tpsim_core::Simulation::new(SystemModel::new(&sys, &streams));
        sim.run_until(at, None);
        let (model, ctx) = sim.parts_mut();
        let owner = model
            .owners
            .insert(Owner::new(OwnerKind::Detached, &streams, "test"));
        let pid = model.spawn(0, owner, true, at);
        test(model, ctx, pid);
    }

    /// `text` under the working-set policy, with a window of 5 ms.
    pub(in crate::system::model) fn under_working_set(text: &str) -> String {
        text.replace(
            "replacement = \"clock\"",
            "replacement = \"working-set\"\n        tau = \"5ms\"",
        )
    }

    /// `text` under page-fault frequency, with a critical interval of 10 ms.
    pub(in crate::system::model) fn under_fault_frequency(text: &str) -> String {
        text.replace(
            "replacement = \"clock\"",
            "replacement = \"page-fault-frequency\"\n        fault_interval = \"10ms\"",
        )
    }

    /// `text` with `settings` at the end of its memory section, before its
    /// disk's `[[device]]` (devices may come with them).
    pub(in crate::system::model) fn with_memory(text: &str, settings: &str) -> String {
        let at = "device = \"disk\"\n        [[device]]";
        assert!(
            text.contains(at),
            "a memory section on the disk, then the disk"
        );
        text.replacen(at, &format!("device = \"disk\"\n{settings}\n[[device]]"), 1)
    }

    /// `TEN_PAGE_SETS` with 100-page images and `settings` in its memory
    /// section.
    pub(in crate::system::model) fn hundred_page_images(settings: &str) -> String {
        let text = TEN_PAGE_SETS.replace("size = \"40KiB\"", "size = \"100KiB\"");
        with_memory(&text, settings)
    }

    /// The index of the device named `name`.
    pub(in crate::system::model) fn device(model: &SystemModel, name: &str) -> usize {
        model
            .sys
            .devices
            .iter()
            .position(|d| d.name == name)
            .unwrap()
    }

    /// Makes `pid` eligible as an award would, without running it.
    pub(in crate::system::model) fn make_eligible(model: &mut SystemModel, pid: usize) {
        model.wait_eligible(pid);
        let award = model.eligibility.award().expect("nothing else waits");
        assert_eq!(award.pid, pid);
    }

    /// The fraction of `n` looks that find the page in frame 0 referenced
    /// when its owner ran `exposure` since the last look, which was at
    /// `decided` of its processor time.
    fn found_referenced(
        model: &mut SystemModel,
        pid: usize,
        decided: SimTime,
        exposure: SimTime,
    ) -> f64 {
        let n = 40_000;
        let mut hits = 0;
        for _ in 0..n {
            let frame = &mut model.memory.frames.frames[0];
            frame.decided = decided;
            frame.referenced = false;
            model.procs.set_cpu_user(pid, decided + exposure);
            model.decide_references(0);
            hits += u32::from(std::mem::take(
                &mut model.memory.frames.frames[0].referenced,
            ));
        }
        f64::from(hits) / f64::from(n)
    }

    #[test]
    fn a_packed_entry_is_the_entry_it_was_given() {
        let most = PackedPte::NUMBERS;
        let entries = [
            Pte::Untouched,
            Pte::Out,
            Pte::Resident(0),
            Pte::Resident(most),
            Pte::Free(1),
            Pte::Free(most),
            Pte::Reading(12_345),
            Pte::Reading(most),
            Pte::Bulk(0),
            Pte::Bulk(most),
        ];
        for pte in entries {
            assert_eq!(PackedPte::pack(pte).unpack(), pte);
        }
        let packed: Vec<PackedPte> = entries.iter().map(|&p| PackedPte::pack(p)).collect();
        for (i, a) in packed.iter().enumerate() {
            for b in &packed[i + 1..] {
                assert_ne!(a, b, "distinct entries pack apart");
            }
        }
    }

    #[test]
    #[should_panic(expected = "29 bits")]
    fn a_frame_past_29_bits_is_refused() {
        let _ = PackedPte::pack(Pte::Resident(PackedPte::NUMBERS + 1));
    }

    #[test]
    fn the_hand_finds_a_page_referenced_as_often_as_its_exposure_implies() {
        with_process(TEN_PAGE_SETS, |model, _, pid| {
            let in_set = model.memory.frames.tables[pid].slots[0];
            let place = |model: &mut SystemModel, page: u32| {
                let frame = &mut model.memory.frames.frames[0];
                (frame.owner, frame.page, frame.use_) =
                    (FrameOwner::process(pid), page, Use::Resident);
            };
            place(model, in_set);
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            // A page of a 10-page set, a reference every millisecond: each page
            // is referenced at a rate of 1 per 10 ms of its owner's processor
            // time.
            for (exposure, p) in [(5, 1.0 - (-0.5f64).exp()), (20, 1.0 - (-2.0f64).exp())] {
                let seen = found_referenced(model, pid, SimTime::ZERO, ms(exposure));
                let sigma = (p * (1.0 - p) / 40_000.0).sqrt();
                assert!(
                    (seen - p).abs() < 5.0 * sigma,
                    "{exposure} ms: {seen} against {p}"
                );
            }
            // Only the time since the phase began counts for a page of the set.
            model.memory.frames.reach[pid].phase_start = ms(15);
            let seen = found_referenced(model, pid, SimTime::ZERO, ms(20));
            let p = 1.0 - (-0.5f64).exp();
            let sigma = (p * (1.0 - p) / 40_000.0).sqrt();
            assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
            // A page outside the set is never referenced.
            let outside = (0..40)
                .find(|&page| !model.memory.frames.tables[pid].in_set(page))
                .unwrap();
            place(model, outside);
            assert_eq!(found_referenced(model, pid, SimTime::ZERO, ms(50)), 0.0);
        });
    }

    /// Makes `page` of `pid` resident in the next free frame, not
    /// referenced.
    pub(in crate::system::model) fn give(model: &mut SystemModel, pid: usize, page: u32) -> u32 {
        let f = model.memory.frames.pop_front().unwrap();
        model.memory.pool.frames -= 1;
        model.memory.pool.anonymous -= 1;
        let frame = &mut model.memory.frames.frames[f as usize];
        (frame.owner, frame.page, frame.use_) = (FrameOwner::process(pid), page, Use::Resident);
        frame.valid = true;
        let p = &mut model.memory.of[pid];
        p.held.resident += 1;
        model.memory.frames.tables[pid].set_entry(page as usize, Pte::Resident(f));
        model.memory.frames.tables[pid].mark_resident(page);
        f
    }

    /// Marks the page in frame `f` modified since it was read.
    pub(in crate::system::model) fn modify(model: &mut SystemModel, f: u32) {
        model.memory.frames.frames[f as usize].modified = true;
    }

    #[test]
    fn the_back_hand_frees_only_pages_not_referenced_since_the_front_hand() {
        let text = hundred_page_images("handspread = \"10KiB\"\nlotsfree = \"32KiB\"");
        with_process(&text, |model, ctx, pid| {
            // Frames 0 to 59 hold pages 0 to 59; 4 frames are free. The process
            // is off the processor and has run no time since: nothing is
            // referenced unless said so.
            for page in 0..60 {
                assert_eq!(give(model, pid, page), page);
            }
            for f in 0..20 {
                model.memory.frames.frames[f].referenced = true;
            }
            let resident =
                |model: &SystemModel, f: usize| model.memory.frames.frames[f].use_ == Use::Resident;
            // Ten steps: the front hand clears frames 0-9, the back hand, ten
            // behind, frees 54-59 (60-63 are free already).
            model.memory.frames.budget = 10;
            model.scan(ctx);
            assert!((54..60).all(|f| !resident(model, f)));
            assert!((0..54).all(|f| resident(model, f)));
            assert!((0..10).all(|f| !model.memory.frames.frames[f].referenced));
            // Page 5 is referenced after the front hand passed; ten more
            // steps: the back hand frees 0-9 but 5.
            model.memory.frames.frames[5].referenced = true;
            model.memory.frames.budget = 10;
            model.scan(ctx);
            for f in 0..20 {
                assert_eq!(resident(model, f), f == 5 || f >= 10, "frame {f}");
            }
            assert_eq!(model.memory.pool.frames, 4 + 6 + 9);
            model.check_frames();
        });
    }

    #[test]
    fn the_fault_handler_moves_the_hand_without_a_budget() {
        let text =
            hundred_page_images("pageout = \"fault\"\nlotsfree = \"8KiB\"\ndesfree = \"2KiB\"");
        with_process(&text, |model, ctx, pid| {
            // Frames 0 to 59 hold pages 0 to 59, 0 to 19 referenced; 4
            // frames are free, and the daemon's budget is spent.
            for page in 0..60 {
                assert_eq!(give(model, pid, page), page);
            }
            for f in 0..20 {
                model.memory.frames.frames[f].referenced = true;
            }
            model.memory.frames.budget = 0;
            // The hand clears 0-19 and frees 20-23: 8 frames free.
            model.scan(ctx);
            assert_eq!(model.memory.pool.frames, 8);
            let resident =
                |model: &SystemModel, f: usize| model.memory.frames.frames[f].use_ == Use::Resident;
            for f in 0..60 {
                assert_eq!(resident(model, f), !(20..24).contains(&f), "frame {f}");
            }
            assert!((0..20).all(|f| !model.memory.frames.frames[f].referenced));
            assert_eq!(model.memory.frames.hand, 24);
            // Every page referenced again: two revolutions at most, and
            // the second frees what the first cleared.
            for f in 0..60 {
                model.memory.frames.frames[f].referenced = true;
            }
            for _ in 0..4 {
                let f = model.memory.frames.pop_front().unwrap();
                model.take_free_frame(f);
            }
            model.scan(ctx);
            assert_eq!(model.memory.pool.frames, 8);
            // A fault that takes a frame and leaves fewer than lotsfree
            // free (7, above desfree's 2) moves the hand itself.
            let p = &mut model.memory.of[pid];
            model.memory.frames.tables[pid].faulting = 70;
            p.fault_in_text = false;
            assert!(model.clock_take_frame(pid, ctx));
            assert_eq!(model.memory.pool.frames, 8);
        });
    }

    #[test]
    fn a_fault_wakes_the_daemon_only_below_desfree() {
        let text = hundred_page_images("lotsfree = \"8KiB\"\ndesfree = \"2KiB\"");
        with_process(&text, |model, ctx, pid| {
            // 61 of the 64 frames hold pages, none referenced; the daemon's
            // budget would let the hand free up to lotsfree.
            for page in 0..61 {
                give(model, pid, page);
            }
            model.memory.frames.budget = 64;
            let mut fault_on = |model: &mut SystemModel, page: u32| {
                let p = &mut model.memory.of[pid];
                model.memory.frames.tables[pid].faulting = page;
                p.fault_in_text = false;
                assert!(model.clock_take_frame(pid, ctx));
            };
            // A fault that leaves desfree free does not wake the daemon.
            fault_on(model, 70);
            assert_eq!((model.memory.pool.frames, model.memory.frames.hand), (2, 0));
            // One that leaves fewer does: the hand frees up to lotsfree.
            fault_on(model, 71);
            assert_eq!((model.memory.pool.frames, model.memory.frames.hand), (8, 7));
        });
    }

    #[test]
    fn the_working_set_keeps_exactly_the_pages_referenced_within_tau() {
        let text = under_working_set(TEN_PAGE_SETS);
        with_process(&text, |model, ctx, pid| {
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            // Pages 0-39 resident, each last referenced at page-number
            // milliseconds, all decided up to 40 ms: at 40 ms of processor
            // time, those last referenced more than 5 ms ago leave.
            for page in 0..40 {
                let f = give(model, pid, page);
                let frame = &mut model.memory.frames.frames[f as usize];
                (frame.last_ref, frame.decided) = (ms(u64::from(page)), ms(40));
            }
            model.procs.set_cpu_user(pid, ms(40));
            model.trim_working_set(pid, ctx);
            for page in 0..40u32 {
                let kept = matches!(
                    model.memory.frames.tables[pid].entry(page as usize),
                    Pte::Resident(_)
                );
                assert_eq!(kept, page >= 35, "page {page}");
            }
            assert_eq!(model.memory.of[pid].held.resident, 5);
            model.check_frames();
        });
    }

    #[test]
    fn under_load_control_a_command_with_no_history_is_taken_to_need_its_image() {
        // The working set's load control admits a command by its owner's
        // last resident set; with none yet, by its whole image (40 pages).
        let text = under_working_set(TEN_PAGE_SETS);
        with_process(&text, |model, _, pid| {
            let owner = model.procs[pid].owner;
            for (history, estimate) in [(None, 40.0), (Some(7.0), 7.0)] {
                model.owners[owner].working_set = history;
                make_eligible(model, pid);
                assert_eq!(model.eligibility.estimate(pid), estimate);
                model.eligibility.release(pid);
            }
        });
    }

    #[test]
    fn a_late_fault_frees_what_was_not_referenced_since_the_one_before() {
        with_process(&under_fault_frequency(TEN_PAGE_SETS), |model, ctx, pid| {
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            // Pages 0-39 last referenced at page-number milliseconds, decided
            // up to 40 ms; the previous fault was at 30 ms.
            for page in 0..40 {
                let f = give(model, pid, page);
                let frame = &mut model.memory.frames.frames[f as usize];
                (frame.last_ref, frame.decided) = (ms(u64::from(page)), ms(40));
            }
            model.memory.frames.tables[pid].last_fault = ms(30);
            // A fault 10 ms later is not late: nothing goes.
            model.procs.set_cpu_user(pid, ms(40));
            assert!(!model.fault_frequency(pid, ctx), "nothing freed");
            assert_eq!(model.memory.of[pid].held.resident, 40);
            assert_eq!(model.memory.frames.tables[pid].last_fault, ms(40));
            // One 11 ms after that is: the pages not referenced since 40 ms go,
            // here all but those brought in or referenced at 40 ms or later.
            for f in 35..40usize {
                model.memory.frames.frames[f].last_ref = ms(40);
            }
            model.procs.set_cpu_user(pid, ms(51));
            for f in 0..40usize {
                model.memory.frames.frames[f].decided = ms(51);
            }
            assert!(model.fault_frequency(pid, ctx), "pages freed");
            for page in 0..40u32 {
                let kept = matches!(
                    model.memory.frames.tables[pid].entry(page as usize),
                    Pte::Resident(_)
                );
                assert_eq!(kept, page >= 35, "page {page}");
            }
            model.check_frames();
        });
    }

    #[test]
    fn what_a_late_fault_frees_goes_to_a_process_waiting_for_a_frame() {
        with_process(&under_fault_frequency(TEN_PAGE_SETS), |model, ctx, pid| {
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            // The process holds all of its 40 pages but one of its set;
            // another process of the class holds the other 25 frames.
            let missing = model.memory.frames.tables[pid].slots[0];
            for page in (0..40).filter(|&page| page != missing) {
                give(model, pid, page);
            }
            let other = model.spawn(0, model.procs[pid].owner, true, ctx.now());
            for page in 0..25 {
                give(model, other, page);
            }
            assert_eq!(model.memory.pool.frames, 0);
            // The other faults on a page of its own and waits for a frame.
            model.memory.frames.tables[other].faulting = 30;
            model.memory.of[other].fault_source = Source::read(device(model, "disk"));
            model.page_in(other, ctx);
            assert_eq!(model.memory.pool.waiters, [other]);
            // The first faults 15 ms of processor time after its last fault:
            // the pages outside its set, not referenced since, are freed, and
            // the waiting process gets one while the first is in its fault
            // path (its own read starts after).
            model.memory.frames.tables[pid].last_fault = ms(5);
            model.procs.set_cpu_user(pid, ms(20));
            model.phase_fault_gap(pid);
            model.clock_fault(0, pid, ctx);
            assert_eq!(model.memory.frames.tables[pid].faulting, missing);
            assert!(
                model.memory.pool.waiters.is_empty(),
                "the waiting process is served"
            );
            assert!(!model.memory.of[other].waiting_frame);
            assert_eq!(
                requests_at(model, "disk"),
                1.0,
                "the waiting process's read"
            );
            model.check_frames();
        });
    }

    #[test]
    fn a_read_from_the_swap_area_brings_in_its_cluster() {
        let text = with_memory(TEN_PAGE_SETS, "kluster = 4");
        // Pages 4, 5 and 7 are in the swap area, 6 was never touched; page
        // 5 faults: its cluster is pages 4 to 7, of which 4 and 7 come too.
        let fault_on_5 = |model: &mut SystemModel, pid: usize| {
            for page in [4, 5, 7] {
                model.memory.frames.tables[pid].set_entry(page, Pte::Out);
            }
            model.memory.frames.tables[pid].faulting = 5;
            model.memory.of[pid].fault_from_file = false;
        };
        with_process(&text, |model, ctx, pid| {
            fault_on_5(model, pid);
            assert_eq!(model.kluster(pid), 2);
            assert!(model.clock_take_frame(pid, ctx));
            model.clock_place_page(pid, SimTime::ZERO);
            let table = &model.memory.frames.tables[pid];
            for (page, resident) in [
                (3, false),
                (4, true),
                (5, true),
                (6, false),
                (7, true),
                (8, false),
            ] {
                assert_eq!(
                    matches!(table.entry(page), Pte::Resident(_)),
                    resident,
                    "page {page}"
                );
            }
            let referenced = |page: usize| match model.memory.frames.tables[pid].entry(page) {
                Pte::Resident(f) => model.memory.frames.frames[f as usize].referenced,
                _ => unreachable!(),
            };
            assert!(referenced(5) && !referenced(4) && !referenced(7));
            assert_eq!(model.memory.of[pid].held.resident, 3);
            assert_eq!(model.stats.counters.klustered, 2);
            // A page of the program's file is read alone.
            model.memory.frames.tables[pid].set_entry(9, Pte::Out);
            model.memory.frames.tables[pid].faulting = 8;
            model.memory.of[pid].fault_from_file = true;
            assert_eq!(model.kluster(pid), 0);
            // So is a page of the shared text.
            model.memory.of[pid].fault_from_file = false;
            model.memory.of[pid].fault_in_text = true;
            assert_eq!(model.kluster(pid), 0);
        });
        // With a bulk store in front of the disk, a page read from the bulk
        // store comes alone, one read from the disk with its cluster.
        let text = with_memory(
            TEN_PAGE_SETS,
            "kluster = 4\nswapper = false\nbulk_store = \"drum\"\nbulk_store_size = \"16KiB\"\n[[device]]\nname = \"drum\"\nrate = \"4MB/s\"",
        );
        with_process(&text, |model, _, pid| {
            fault_on_5(model, pid);
            let (drum, disk) = (device(model, "drum"), device(model, "disk"));
            model.memory.of[pid].fault_source = Source::read(drum);
            assert_eq!(model.kluster(pid), 0);
            model.memory.of[pid].fault_source = Source::read(disk);
            assert_eq!(model.kluster(pid), 2);
        });
    }

    #[test]
    fn one_hand_frees_until_lotsfree_and_counts_what_it_took() {
        let text = hundred_page_images("lotsfree = \"16KiB\"");
        with_process(&text, |model, ctx, pid| {
            // 60 pages resident, none referenced, 4 frames free: the hand frees
            // pages until 16 are free, and no more, whatever its budget.
            for page in 0..60 {
                give(model, pid, page);
            }
            // The pages in frames 0-9 are modified: each is written as it goes.
            for f in 0..10 {
                model.memory.frames.frames[f].modified = true;
            }
            model.memory.frames.budget = 1_000;
            model.scan(ctx);
            assert_eq!(model.memory.pool.frames, 16);
            assert_eq!(model.stats.counters.pages_stolen, 12);
            assert_eq!(model.stats.counters.page_writes, 10);
            assert_eq!(model.memory.of[pid].held.resident, 48);
            model.check_frames();
        });
    }

    #[test]
    fn a_page_read_in_is_modified_with_its_class_s_probability() {
        for (dirty, low, high) in [(0.0, 0, 0), (1.0, 60, 60), (0.5, 15, 45)] {
            let text = TEN_PAGE_SETS
                .replace("size = \"40KiB\"", "size = \"100KiB\"")
                .replace(
                    "size = \"100KiB\"\n",
                    &format!("size = \"100KiB\"\n        dirty = {dirty}\n"),
                );
            with_process(&text, |model, _, pid| {
                let mut modified = 0;
                for page in 0..60 {
                    let f = model.memory.frames.pop_front().unwrap();
                    model.take_free_frame(f);
                    let frame = &mut model.memory.frames.frames[f as usize];
                    (frame.owner, frame.page, frame.use_) =
                        (FrameOwner::process(pid), page, Use::Reading);
                    model.memory.frames.tables[pid].set_entry(page as usize, Pte::Reading(f));
                    model.fill_frame(pid, page, f, true);
                    modified += u32::from(model.memory.frames.frames[f as usize].modified);
                }
                assert!(
                    (low..=high).contains(&modified),
                    "dirty {dirty}: {modified} of 60"
                );
            });
        }
    }

    #[test]
    fn a_reach_holds_the_set_s_pages_round_the_image_s_end() {
        let reach = Reach {
            first: 95,
            set: 10,
            pages: 100,
            ..Reach::default()
        };
        let held: Vec<u32> = (0..100).filter(|&page| reach.holds(page)).collect();
        assert_eq!(held, [0, 1, 2, 3, 4, 95, 96, 97, 98, 99]);
        // Before its first phase a process has no set.
        assert!((0..100).all(|page| !Reach::default().holds(page)));
    }

    #[test]
    fn a_frame_owner_is_a_process_or_a_text_and_nobody_is_neither() {
        for i in [0, 1, 7, (1 << 31) - 2] {
            assert_eq!(FrameOwner::process(i).whose(), Whose::Process(i));
            assert_eq!(FrameOwner::text(i).whose(), Whose::Text(i));
            assert_ne!(FrameOwner::process(i), FrameOwner::text(i));
            assert!(!FrameOwner::text(i).is_nobody());
        }
        assert!(FrameOwner::NOBODY.is_nobody());
        assert!(std::panic::catch_unwind(|| FrameOwner::NOBODY.whose()).is_err());
        assert!(std::panic::catch_unwind(|| FrameOwner::process(1 << 31)).is_err());
    }

    #[test]
    #[cfg(debug_assertions)]
    fn the_frames_check_the_free_list_and_the_owners_counts() {
        let frames = |n| Frames::new(n, std::iter::empty(), Streams::new(7, 0).stream("refs"));
        let mut f = frames(4);
        f.check(4, &[], &[], None, |_| false);
        // A frame taken off the free list that the pool still counts.
        f.pop_front();
        assert!(std::panic::catch_unwind(|| f.check(4, &[], &[], None, |_| false)).is_err());
        // A process that counts a resident page its table does not have.
        let mut f = frames(4);
        f.enter(0);
        let one = Pages {
            resident: 1,
            ..Pages::default()
        };
        f.check(4, &[(0, Pages::default())], &[], None, |_| false);
        assert!(
            std::panic::catch_unwind(|| f.check(4, &[(0, one)], &[], None, |_| false)).is_err()
        );
    }

    #[test]
    fn the_weight_tree_sums_updates_and_finds_like_a_plain_list() {
        let mut weights: Vec<u64> = (1..=37).map(|i| (i * 7919) % 101).collect();
        let mut tree = Fenwick::build(weights.iter().copied());
        for step in 0..200usize {
            let at = (step * 13) % weights.len();
            if step % 3 == 0 {
                tree.sub(at, weights[at]);
                weights[at] = 0;
            } else {
                tree.add(at, 5);
                weights[at] += 5;
            }
            assert_eq!(tree.total, weights.iter().sum::<u64>());
            for i in 0..=weights.len() {
                assert_eq!(tree.prefix(i), weights[..i].iter().sum::<u64>());
            }
            // Every unit of weight is found at its position.
            let mut u = 0;
            for (i, &w) in weights.iter().enumerate() {
                for k in [0, w / 2, w.saturating_sub(1)] {
                    if w > 0 {
                        assert_eq!(tree.find(u + k), i, "unit {} at step {step}", u + k);
                    }
                }
                u += w;
            }
        }
    }

    #[test]
    fn zipf_references_fault_by_weight_on_the_missing_pages() {
        // A 10-page set under Zipf's law with exponent 1: the page at
        // position i (from 1) takes 1 / (i H) of the references, H the 10th
        // harmonic number; the first 5 pages of the set are resident.
        let text = TEN_PAGE_SETS.replace(
            "reference = \"1ms\" }",
            "reference = \"1ms\", pattern = { zipf = 1.0 } }",
        );
        with_process(&text, |model, _, pid| {
            let set: Vec<u32> = {
                let w = model.memory.frames.tables[pid]
                    .weighted
                    .as_ref()
                    .expect("weighted");
                let pages = model.procs[pid].pages as u32;
                (0..10).map(|i| (w.first + i) % pages).collect()
            };
            for &page in &set[..5] {
                give(model, pid, page);
            }
            model.check_frames();
            let h: f64 = (1..=10).map(|i| 1.0 / f64::from(i)).sum();
            let share = |i: u32| 1.0 / (f64::from(i + 1) * h);
            let missing: f64 = (5..10).map(share).sum();
            let phases = model.phases_of(pid).clone();
            let mean = model.memory.frames.tables[pid].mean_time_between_faults(&phases, 5);
            assert!((mean - 1e-3 / missing).abs() < 1e-9 * mean, "{mean}");
            // The hand decides a page's references at its own rate: the
            // page at position i, one in i H references.
            for i in [1u32, 3, 10] {
                let page = set[i as usize - 1];
                let between =
                    model.memory.frames.tables[pid].mean_between_references(page, &phases);
                let expected = 1e-3 * f64::from(i) * h;
                assert!(
                    (between - expected).abs() < 1e-9 * expected,
                    "position {i}: {between}"
                );
            }
            // The faulted page is drawn in proportion to its weight.
            let n = 60_000;
            let mut counts = [0u32; 10];
            for _ in 0..n {
                let Missing::Private(page) = model.memory.frames.tables[pid].draw_missing(
                    5,
                    None,
                    &mut model.memory.streams.placement,
                ) else {
                    unreachable!("no shared text")
                };
                counts[set.iter().position(|&p| p == page).unwrap()] += 1;
            }
            assert!(counts[..5].iter().all(|&c| c == 0), "{counts:?}");
            for i in 5..10u32 {
                let p = share(i) / missing;
                let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
                let seen = f64::from(counts[i as usize]) / f64::from(n);
                assert!(
                    (seen - p).abs() < 5.0 * sigma,
                    "position {i}: {seen} against {p}"
                );
            }
            // A resident page is referenced at its own rate: the set's
            // first page ten times as often as its last.
            for (i, page) in [(0u32, set[0]), (4, set[4])] {
                let mean = model.memory.frames.tables[pid].mean_between_references(page, &phases);
                assert!((mean - 1e-3 / share(i)).abs() < 1e-9 * mean, "{i}: {mean}");
            }
            // And the hand finds it referenced accordingly: the set's first
            // page, in frame 0, over 3 ms of its owner's processor time.
            assert_eq!(model.memory.frames.frames[0].page, set[0]);
            let exposure = SimTime::from_nanos(3_000_000);
            let p = 1.0 - (-3e-3 * share(0) / 1e-3).exp();
            let seen = found_referenced(model, pid, SimTime::ZERO, exposure);
            let sigma = (p * (1.0 - p) / 40_000.0).sqrt();
            assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
        });
    }

    /// `TEN_PAGE_SETS` with a 100-page image, `lotsfree` 16 pages and a
    /// bulk store of 8 pages, `drum`, in front of the disk.
    fn with_bulk_store() -> String {
        hundred_page_images(
            "lotsfree = \"16KiB\"\nswapper = false\nbulk_store = \"drum\"\nbulk_store_size = \"8KiB\"\n[[device]]\nname = \"drum\"\nrate = \"4MB/s\"\nfault_cpu = \"0s\"",
        )
    }

    /// Requests present at the device named `name`.
    fn requests_at(model: &SystemModel, name: &str) -> f64 {
        let d = model
            .sys
            .devices
            .iter()
            .position(|d| d.name == name)
            .unwrap();
        model.devices[d].meter.present.value()
    }

    #[test]
    fn pages_leaving_memory_go_to_the_bulk_store_and_its_oldest_on_to_the_drives() {
        with_process(&with_bulk_store(), |model, ctx, pid| {
            for page in 0..60 {
                give(model, pid, page);
            }
            // Only the pages in frames 0-1 are modified; every page freed is
            // written to the bulk store all the same.
            for f in 0..2 {
                model.memory.frames.frames[f].modified = true;
            }
            model.memory.frames.budget = 1_000;
            model.scan(ctx);
            // The hand frees 12 pages, 0 to 11, each written to the bulk
            // store; it holds 8, so the 4 freed first go on to the disk.
            assert_eq!(model.stats.counters.pages_stolen, 12);
            assert_eq!(model.stats.counters.page_writes, 16);
            assert_eq!(requests_at(model, "drum"), 12.0);
            assert_eq!(requests_at(model, "disk"), 4.0);
            for page in 0..12 {
                let entry = model.memory.frames.tables[pid].entry(page);
                assert_eq!(
                    matches!(entry, Pte::Bulk(_)),
                    page >= 4,
                    "page {page}: {entry:?}"
                );
                assert_eq!(entry == Pte::Out, page < 4, "page {page}: {entry:?}");
            }
            assert_eq!(model.memory.frames.bulk.used, 8);
            model.check_frames();
        });
    }

    #[test]
    fn a_fault_on_a_page_on_the_bulk_store_reads_it_from_there() {
        with_process(&with_bulk_store(), |model, ctx, pid| {
            // The whole locality set resident but one page, freed to the
            // bulk store: the fault is on it.
            let set = model.memory.frames.tables[pid].slots.clone();
            let frames: Vec<u32> = set.iter().map(|&page| give(model, pid, page)).collect();
            model.free_frame(frames[3], ctx);
            assert!(matches!(
                model.memory.frames.tables[pid].entry(set[3] as usize),
                Pte::Bulk(_)
            ));
            // Dispatched, it draws its fault from the set's missing pages.
            model.phase_fault_gap(pid);
            model.clock_fault(0, pid, ctx);
            let drum = model
                .sys
                .devices
                .iter()
                .position(|d| d.name == "drum")
                .unwrap();
            assert_eq!(model.memory.of[pid].fault_source, Source::read(drum));
            assert_eq!(model.memory.frames.tables[pid].faulting, set[3]);
            assert_eq!(model.stats.counters.bulk_reads, 1);
            assert_eq!(model.stats.counters.disk_reads, 0);
            // It has left the bulk store: however full that gets now, the
            // page is not pushed on to the disk while it is read.
            assert_eq!(model.memory.frames.bulk.used, 0);
            assert_eq!(
                model.memory.frames.tables[pid].entry(set[3] as usize),
                Pte::Out
            );
            model.check_frames();
        });
    }

    #[test]
    fn the_bulk_store_s_age_queue_drops_stale_entries_and_keeps_its_order() {
        with_process(&with_bulk_store(), |model, ctx, pid| {
            for page in 0..4 {
                let f = give(model, pid, page);
                model.free_frame(f, ctx);
            }
            // Page 10 goes to the bulk store and is read back 2,100 times,
            // each time as a fault on it would take it: its stale entries
            // are dropped once the queue outgrows twice 1,024 entries, not
            // before (so that dropping them costs O(1) a write, amortised).
            for write in 1..=2_100 {
                let f = give(model, pid, 10);
                model.free_frame(f, ctx);
                model.memory.frames.tables[pid].set_entry(10, Pte::Out);
                model.memory.frames.bulk.used -= 1;
                if write == 2_044 {
                    assert_eq!(model.memory.frames.bulk.age.len(), 2_048, "not yet dropped");
                }
            }
            assert!(
                model.memory.frames.bulk.age.len() < 100,
                "stale entries dropped"
            );
            // The store then overflows: the page pushed on to the disk is
            // still the oldest, page 0.
            for page in 20..25 {
                let f = give(model, pid, page);
                model.free_frame(f, ctx);
            }
            assert_eq!(requests_at(model, "disk"), 1.0);
            let table = &model.memory.frames.tables[pid];
            assert_eq!(table.entry(0), Pte::Out);
            assert!(
                (1..4)
                    .chain(20..25)
                    .all(|page| matches!(table.entry(page), Pte::Bulk(_)))
            );
            model.check_frames();
        });
    }

    #[test]
    fn the_bulk_store_s_writes_are_numbered_anew_past_29_bits() {
        with_process(&with_bulk_store(), |model, ctx, pid| {
            // Pages 0 to 3 go to the store, the serials near their end.
            model.memory.frames.bulk.serial = PackedPte::NUMBERS - 2;
            let bulk = |model: &SystemModel, page: usize| match model.memory.frames.tables[pid]
                .entry(page)
            {
                Pte::Bulk(serial) => serial,
                other => panic!("page {page}: {other:?}"),
            };
            let mut write = |model: &mut SystemModel, page: u32| {
                let f = give(model, pid, page);
                model.free_frame(f, ctx);
            };
            write(model, 0);
            write(model, 1);
            assert_eq!(bulk(model, 0), PackedPte::NUMBERS - 2);
            assert_eq!(bulk(model, 1), PackedPte::NUMBERS - 1);
            // Page 2 takes the last serial of 29 bits: the three pages on
            // the store are numbered anew, 0 to 2 in their order.
            write(model, 2);
            assert_eq!(
                (0..3).map(|p| bulk(model, p)).collect::<Vec<_>>(),
                [0, 1, 2]
            );
            write(model, 3);
            assert_eq!(bulk(model, 3), 3);
            assert_eq!(model.memory.frames.bulk.serial, 4);
            // Page 1 is read back, its entry left in the queue.
            model.memory.frames.tables[pid].set_entry(1, Pte::Out);
            model.memory.frames.bulk.used -= 1;
            // Page 1 written again takes serial 4; the store then
            // overflows, and its oldest pages go on to the disk in order:
            // 0, then 2 (page 1's first entry passed over), then 3.
            write(model, 1);
            assert_eq!(bulk(model, 1), 4);
            for page in 20..27 {
                write(model, page);
            }
            assert_eq!(requests_at(model, "disk"), 3.0);
            let table = &model.memory.frames.tables[pid];
            assert_eq!(
                (table.entry(0), table.entry(2), table.entry(3)),
                (Pte::Out, Pte::Out, Pte::Out)
            );
            assert_eq!(bulk(model, 1), 4);
            model.check_frames();
        });
    }

    #[test]
    fn an_exiting_process_leaves_the_bulk_store_and_its_entries_are_passed_over() {
        with_process(&with_bulk_store(), |model, ctx, pid| {
            for page in 0..8 {
                let f = give(model, pid, page);
                model.free_frame(f, ctx);
            }
            assert_eq!(model.memory.frames.bulk.used, 8);
            let owner = model.procs[pid].owner;
            model.exit(pid, ctx);
            assert_eq!(model.memory.frames.bulk.used, 0);
            // A second process, in the same slot, writes pages 8 down to 0:
            // the store overflows once, and the page that goes on to the
            // disk is its oldest, page 8, not one the first's stale entries
            // name (page 0 and on, written again since).
            let other = model.spawn(0, owner, true, SimTime::ZERO);
            assert_eq!(other, pid);
            for page in (0..9).rev() {
                let f = give(model, other, page);
                model.free_frame(f, ctx);
            }
            assert_eq!(requests_at(model, "disk"), 1.0);
            assert_eq!(model.memory.frames.bulk.used, 8);
            let table = &model.memory.frames.tables[other];
            assert_eq!(table.entry(8), Pte::Out);
            assert!((0..8).all(|page| matches!(table.entry(page), Pte::Bulk(_))));
            model.check_frames();
        });
    }

    #[test]
    fn simulated_bits_invalidate_on_one_pass_and_free_on_the_next() {
        let text = hundred_page_images("lotsfree = \"32KiB\"\nreference_bits = \"simulated\"");
        with_process(&text, |model, ctx, pid| {
            for page in 0..60 {
                give(model, pid, page);
            }
            // The first pass invalidates every page and frees none: each will
            // trap at its next reference, so the whole set counts as missing.
            model.memory.frames.budget = 60;
            model.scan(ctx);
            assert_eq!(
                (model.memory.pool.frames, model.memory.of[pid].held.resident),
                (4, 60)
            );
            assert_eq!(model.set_resident(pid), 0);
            assert!((0..60).all(|f| !model.memory.frames.frames[f].valid));
            // The page in frame 3 is touched: the trap makes it valid again.
            let page = model.memory.frames.frames[3].page;
            let found = model.private_fault(pid, page);
            assert_eq!(found, (Source::Reclaim, false));
            assert_eq!(model.stats.counters.reclaims, 1);
            assert_eq!(
                model.set_resident(pid),
                u64::from(model.memory.frames.tables[pid].in_set(page))
            );
            // The next pass frees the pages still invalid, until 32 frames
            // are free, and invalidates frame 3 again.
            model.memory.frames.budget = 64;
            model.scan(ctx);
            assert_eq!(model.memory.pool.frames, 32);
            let resident = |f: usize| model.memory.frames.frames[f].use_ == Use::Resident;
            assert!(resident(3) && !model.memory.frames.frames[3].valid);
            assert!((0..29).filter(|&f| f != 3).all(|f| !resident(f)));
            assert!((29..60).all(resident));
            model.check_frames();
        });
    }

    #[test]
    fn nested_sets_are_drawn_within_their_region_until_it_ends() {
        // Sets of 10 pages in regions of 20 that last 5 s of processor
        // time, each set 1 s: every set lies in its region, a region holds
        // for five sets, and the sets' first pages spread over the
        // region's 11 possible places.
        let text = TEN_PAGE_SETS.replace(
            "reference = \"1ms\" }",
            "reference = \"1ms\", region = { set = 20, phase = { det = { value = \"5s\" } } } }",
        )
        .replace("{ det = { value = \"100s\" } }", "{ det = { value = \"1s\" } }");
        with_process(&text, |model, _, pid| {
            let mut regions = Vec::new();
            let mut firsts = std::collections::BTreeSet::new();
            for second in 0..50 {
                model.procs.set_cpu_user(pid, SimTime::from_secs(second));
                model.new_phase(pid);
                let t = &model.memory.frames.tables[pid];
                let pages = t.len() as u32;
                let offset = |page: u32| (page + pages - t.region_first) % pages;
                assert!(
                    t.slots.iter().all(|&page| offset(page) < 20),
                    "{:?}",
                    t.slots
                );
                let first = t
                    .slots
                    .iter()
                    .copied()
                    .min_by_key(|&page| offset(page))
                    .unwrap();
                firsts.insert(offset(first));
                assert_eq!(t.phase_end, SimTime::from_secs(second + 1));
                // What the hand reads of the set: the phase began now, and
                // the reach holds exactly the table's set.
                let reach = model.memory.frames.reach[pid];
                assert_eq!(reach.phase_start, SimTime::from_secs(second));
                assert!((0..pages).all(|page| reach.holds(page) == t.in_set(page)));
                if regions.last() != Some(&t.region_first) {
                    regions.push(t.region_first);
                    assert_eq!(
                        t.region_end,
                        SimTime::from_secs(second + 5),
                        "at {second} s"
                    );
                }
            }
            // Ten regions, each drawn anew (two in a row may coincide by
            // chance, rarely: 1 in 40).
            assert!(regions.len() >= 8, "{regions:?}");
            assert!(
                firsts.len() >= 9 && firsts.iter().all(|&f| f <= 10),
                "{firsts:?}"
            );
        });
    }
}
