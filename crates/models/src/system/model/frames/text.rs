//! A class's shared text under memory as frames: one page table for every
//! process of the class, its frames owned by the text, not by a process.
//!
//! A process's locality set may cover pages of the text (the image's first
//! pages) as well as private ones. Its fault rate counts the set's missing
//! text pages, read from a Fenwick tree of the text's missing pages over the
//! set's text ranges (at most two, as a set wraps round the image), so a
//! dispatch costs O(log T) for a text of T pages.
//!
//! While a process runs, other processes of its class can only bring text
//! pages in (the hand passes over a class's text while any of its processes
//! is on a processor), so its fault rate can only fall during a burst. The
//! fault drawn at dispatch at the rate of that moment is thinned: at the
//! fault it stands with probability missing now / missing at dispatch, and
//! otherwise the process runs on, its next fault drawn afresh. This is the
//! exact law of a Poisson stream whose rate falls at known moments.
//!
//! Every process of the class references a text page of its set as a
//! Poisson stream of rate `1 / (set · reference)` in its own processor
//! time, so whether a text page was referenced since the hand last looked
//! depends only on the sum over the class's processes of their processor
//! time with the page in their sets since then, its *exposure*. Each
//! burst adds its processor time to the exposure of its set's text ranges
//! (a range add in a Fenwick tree of differences), and the hand decides a
//! page from the exposure since its last decision, as for a private page.

use super::{Fenwick, FrameOwner, Frames, NIL, PageTable, Pte, Use, Whose};
#[cfg(debug_assertions)]
use crate::system::model::Pages;
use crate::system::model::memory::{Manager, MemoryState, View};
use crate::system::model::{Phases, SimTime, Source};

/// A class's shared text: its page table, its missing pages and their
/// exposure to references. A page being faulted on, not yet with a frame,
/// is `Reading(NIL)`.
#[derive(Debug, Default)]
pub(in crate::system::model) struct SharedText {
    pub(super) entries: Vec<Pte>,
    /// A unit weight for each page not usable without a fault: not
    /// resident, or invalidated by the hand.
    missing: Fenwick,
    /// Per page, the processor time the class's processes ran with the page
    /// in their locality sets \[ns\].
    exposure: Exposure,
    /// Faults waiting for a page of the text being read: (page, process).
    waiting: Vec<(u32, u32)>,
}

impl SharedText {
    /// A text of `pages` pages, none ever in memory.
    pub(in crate::system::model) fn new(pages: u64) -> SharedText {
        SharedText {
            entries: vec![Pte::Untouched; pages as usize],
            missing: Fenwick::build((0..pages).map(|_| 1)),
            exposure: Exposure::new(pages as usize),
            waiting: Vec::new(),
        }
    }

    /// The missing pages among `ranges`.
    pub(super) fn missing_in(&self, ranges: &[(u32, u32)]) -> u64 {
        ranges
            .iter()
            .map(|&(a, b)| self.missing.prefix(b as usize) - self.missing.prefix(a as usize))
            .sum()
    }

    /// The resident pages of the text in the locality set of `table`.
    pub(in crate::system::model) fn resident_in(&self, table: &PageTable) -> u64 {
        let ranges = &table.text_ranges;
        let pages: u64 = ranges.iter().map(|&(a, b)| u64::from(b - a)).sum();
        pages - self.missing_in(ranges)
    }

    /// The `k`-th (from 0) missing page among `ranges`.
    pub(super) fn nth_missing(&self, ranges: &[(u32, u32)], mut k: u64) -> u32 {
        for &(a, b) in ranges {
            let before = self.missing.prefix(a as usize);
            let within = self.missing.prefix(b as usize) - before;
            if k < within {
                return self.missing.find(before + k) as u32;
            }
            k -= within;
        }
        unreachable!("fewer missing pages than drawn from")
    }

    pub(super) fn mark_missing(&mut self, page: u32) {
        self.missing.add(page as usize, 1);
    }

    pub(super) fn mark_resident(&mut self, page: u32) {
        self.missing.sub(page as usize, 1);
    }

    /// Adds `work` of processor time to the exposure of each page in
    /// `ranges` (a locality set's text).
    pub(super) fn expose(&mut self, ranges: &[(u32, u32)], work: u64) {
        for &(a, b) in ranges {
            self.exposure.add(a as usize, b as usize, work);
        }
    }

    /// The exposure of `page` so far \[ns\].
    pub(super) fn exposure(&self, page: u32) -> u64 {
        self.exposure.at(page as usize)
    }

    /// Whether `page` counts as missing (debug checks).
    #[cfg(debug_assertions)]
    fn counted_missing(&self, page: u32) -> bool {
        let i = page as usize;
        self.missing.prefix(i + 1) - self.missing.prefix(i) == 1
    }
}

/// Sums added over ranges of positions, read at one position, in
/// O(log n): a Fenwick tree of differences, in wrapping arithmetic (each
/// position's sum is a true sum, never above the run's processor time).
#[derive(Debug, Default)]
struct Exposure {
    /// 1-based differences, as in [`Fenwick`].
    tree: Vec<u64>,
}

impl Exposure {
    fn new(n: usize) -> Exposure {
        Exposure {
            tree: vec![0; n + 1],
        }
    }

    fn add_at(&mut self, at: usize, value: u64) {
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add(value);
            i += i & i.wrapping_neg();
        }
    }

    /// Adds `value` to positions `a..b`.
    fn add(&mut self, a: usize, b: usize, value: u64) {
        self.add_at(a, value);
        self.add_at(b, value.wrapping_neg());
    }

    /// The sum at position `i`.
    fn at(&self, i: usize) -> u64 {
        let mut sum = 0u64;
        let mut i = i + 1;
        while i > 0 {
            sum = sum.wrapping_add(self.tree[i]);
            i &= i - 1;
        }
        sum
    }
}

impl Frames {
    /// The shared text of `class`, when it has one.
    pub(in crate::system::model) fn text(&self, class: usize) -> Option<&SharedText> {
        self.texts.get(class).filter(|t| !t.entries.is_empty())
    }
}

impl MemoryState<'_> {
    /// The fault of `pid` is on `page` of its class's text: where the page
    /// is, and whether it comes from the program's file. A page to read is
    /// marked as being read from now on, before it has a frame, so that
    /// another fault on it waits for this one.
    pub(in crate::system::model) fn text_fault(
        &mut self,
        view: &mut View,
        pid: usize,
        page: u32,
    ) -> (Source, bool) {
        let class = view.process(pid).class;
        let found = self.text_source(view, class, page);
        if let (Source::Read(_), _) = found {
            self.frames.texts[class].entries[page as usize] = Pte::Reading(NIL);
        }
        found
    }

    /// Where `page` of `class`'s text is, for a fault on it: a reclaim and
    /// a revalidation are done at once.
    fn text_source(&mut self, view: &mut View, class: usize, page: u32) -> (Source, bool) {
        let paging = self.paging();
        match self.frames.texts[class].entries[page as usize] {
            Pte::Free(f) => {
                view.stats.counters.reclaims += 1;
                self.frames.unlink(f);
                self.pool.frames -= 1;
                self.texts[class].held.reclaimable -= 1;
                self.fill_text_frame(view, class, page, f);
                (Source::Reclaim, false)
            }
            Pte::Untouched => (Source::read(self.program_device(view.sys())), true),
            // Written to the drives from the bulk store; otherwise never
            // written, and read from the program's file again.
            Pte::Out if paging.bulk_store.is_some() => (Source::read(self.swap_device()), false),
            Pte::Out => (Source::read(self.program_device(view.sys())), true),
            Pte::Bulk(_) => {
                let bulk = paging.bulk_store.as_ref().expect("a bulk store");
                self.frames.bulk.used -= 1;
                self.frames.texts[class].entries[page as usize] = Pte::Out;
                (Source::read(bulk.device), false)
            }
            Pte::Resident(f) => {
                // Invalidated by the hand (simulated reference bits).
                view.stats.counters.reclaims += 1;
                let frame = &mut self.frames.frames[f as usize];
                assert!(!frame.valid, "only an invalidated page traps");
                frame.valid = true;
                self.frames.texts[class].mark_resident(page);
                (Source::Reclaim, false)
            }
            Pte::Reading(_) => {
                // Another process of the class is reading it: wait for
                // that read, without I/O of one's own (counted as a
                // reclaim).
                view.stats.counters.reclaims += 1;
                (Source::InTransit, false)
            }
        }
    }

    /// Makes `page` of `class`'s text resident in frame `f`, referenced
    /// now, its exposure decided up to now; text is never modified.
    pub(in crate::system::model) fn fill_text_frame(
        &mut self,
        view: &mut View,
        class: usize,
        page: u32,
        f: u32,
    ) {
        self.meter_running(view, class);
        let text = &mut self.frames.texts[class];
        let exposure = text.exposure(page);
        text.entries[page as usize] = Pte::Resident(f);
        text.mark_resident(page);
        let frame = &mut self.frames.frames[f as usize];
        (frame.owner, frame.page, frame.use_) = (FrameOwner::text(class), page, Use::Resident);
        frame.referenced = true;
        frame.valid = true;
        frame.modified = false;
        frame.decided = SimTime::from_nanos(exposure);
        self.texts[class].held.resident += 1;
    }

    /// Whether the text page `pid`, of `class`, waits for is in; if not,
    /// `pid` waits for the read under way.
    pub(in crate::system::model) fn wait_in_transit(&mut self, class: usize, pid: usize) -> bool {
        let page = self.frames.tables[pid].faulting;
        let text = &mut self.frames.texts[class];
        match text.entries[page as usize] {
            Pte::Resident(_) => true,
            Pte::Reading(_) => {
                text.waiting.push((page, pid as u32));
                false
            }
            other => unreachable!("a text page being read is read or in, not {other:?}"),
        }
    }

    /// The processes waiting for the page just read for `pid`, of
    /// `class`, if it was a shared text's page under memory as frames:
    /// taken off its text's waiting list in the order they came (none
    /// otherwise).
    pub(in crate::system::model) fn transit_done(
        &mut self,
        class: usize,
        pid: usize,
    ) -> Vec<usize> {
        if !(self.of[pid].fault_in_text && matches!(self.manager, Manager::Frames { .. })) {
            return Vec::new();
        }
        let page = self.frames.tables[pid].faulting;
        let text = &mut self.frames.texts[class];
        if text.waiting.is_empty() {
            return Vec::new();
        }
        let mut done = Vec::new();
        text.waiting.retain(|&(p, pid)| {
            let waits = p != page;
            if !waits {
                done.push(pid as usize);
            }
            waits
        });
        done
    }
}

impl Frames {
    /// Whether a hand decides the text page in frame `f`, of a class with
    /// phase model `phases`, referenced since it was last decided, from its
    /// exposure since then.
    pub(super) fn decide_text_references(&mut self, f: u32, phases: &Phases) {
        let frame = self.frames[f as usize];
        let class = match frame.owner.whose() {
            Whose::Text(class) => class,
            Whose::Process(_) => unreachable!("frame {f} holds a text page"),
        };
        let exposure = self.texts[class].exposure(frame.page);
        let exposed = exposure - frame.decided.as_nanos();
        if exposed > 0 {
            let mean = super::uniform_mean_between_references(phases);
            let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, &mut self.references);
            if mean * e < exposed as f64 * 1e-9 {
                self.frames[f as usize].referenced = true;
            }
        }
        self.frames[f as usize].decided = SimTime::from_nanos(exposure);
    }

    /// Checks each shared text's table against its frames and against
    /// `held`, the pages each class's text counts, and that a process
    /// waiting for a text page being read waits in transit (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check_texts(&self, held: &[Pages], waits_in_transit: impl Fn(usize) -> bool) {
        for (class, text) in self.texts.iter().enumerate() {
            let mut resident = 0;
            let mut reclaimable = 0;
            for (page, &entry) in text.entries.iter().enumerate() {
                let usable = match entry {
                    Pte::Resident(f) => {
                        resident += 1;
                        self.frames[f as usize].valid
                    }
                    Pte::Free(_) => {
                        reclaimable += 1;
                        false
                    }
                    _ => false,
                };
                assert_eq!(
                    text.counted_missing(page as u32),
                    !usable,
                    "text page {page} of class {class}"
                );
            }
            assert_eq!(resident, held[class].resident);
            assert_eq!(reclaimable, held[class].reclaimable);
            for &(page, pid) in &text.waiting {
                assert!(matches!(text.entries[page as usize], Pte::Reading(_)));
                assert!(
                    waits_in_transit(pid as usize),
                    "process {pid} waits in transit"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::{
        FrameCalls, TEN_PAGE_SETS, device, give, make_eligible, under_working_set, with_process_at,
    };
    use crate::system::model::{Burst, BurstKind, Context, Event, SystemModel};
    use crate::system::model::{Change, Outcome, State, memory::Effect};

    /// `TEN_PAGE_SETS` with a 40-page image whose first 20 pages are shared
    /// text, and one phase over the whole image.
    fn shared() -> String {
        TEN_PAGE_SETS
            .replace(
                "size = \"40KiB\"",
                "size = \"40KiB\"\n        text = \"20KiB\"",
            )
            .replace("set = 10", "set = 40")
    }

    /// Runs `test` on a model of `shared()` with two processes of the
    /// class, spawned and off a processor.
    fn with_two(test: impl FnOnce(&mut SystemModel, &mut Context<Event>, usize, usize)) {
        with_process_at(&shared(), SimTime::ZERO, |model, ctx, a| {
            let b = model.spawn(0, model.procs[a].owner, true, SimTime::ZERO);
            test(model, ctx, a, b);
        });
    }

    /// A burst of user work of `pid` from `from` to `to`, without
    /// interrupts or a context switch.
    fn user_burst(pid: usize, from: SimTime, to: SimTime) -> Burst {
        Burst {
            pid,
            kind: BurstKind::User(Outcome::Quantum),
            start: from,
            interrupt_end: from,
            switch_end: from,
            end: to,
        }
    }

    /// Brings `page` of class 0's text into a free frame, as a read for
    /// another process would.
    fn read_in(model: &mut SystemModel, page: u32) {
        let f = model.memory.frames.pop_front().unwrap();
        model.take_free_frame(f);
        model.fill_text_frame(0, page, f, SimTime::ZERO);
    }

    #[test]
    fn the_processes_of_a_class_see_one_copy_of_its_text() {
        with_two(|model, _, a, b| {
            // The set is the whole image, from a page drawn at random: its
            // text ranges cover the text once.
            let mut covered: Vec<u32> = model.memory.frames.tables[a]
                .text_ranges
                .iter()
                .flat_map(|&(x, y)| x..y)
                .collect();
            covered.sort_unstable();
            assert_eq!(covered, (0..20).collect::<Vec<u32>>());
            assert_eq!((model.set_missing(a), model.set_missing(b)), (40, 40));
            for page in [0, 7, 19] {
                read_in(model, page);
            }
            assert_eq!((model.set_missing(a), model.set_missing(b)), (37, 37));
            assert_eq!(model.resident_set(a), 3);
            assert_eq!(
                model.memory.frames.texts[0].resident_in(&model.memory.frames.tables[b]),
                3
            );
            // A fault of either on the text draws only missing text pages.
            let text = &model.memory.frames.texts[0];
            let drawn: Vec<u32> = (20..37)
                .map(|k| text.nth_missing(&[(0, 20)], k - 20))
                .collect();
            assert_eq!(
                drawn,
                [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
            );
            model.check_frames();
        });
    }

    #[test]
    fn a_working_set_estimate_counts_the_text_pages_resident_in_the_set() {
        // Under the working set's load control, a process giving up
        // eligibility leaves its resident set as its owner's estimate: its
        // private pages and the shared text's pages resident in its set.
        let text = under_working_set(&shared());
        with_process_at(&text, SimTime::ZERO, |model, _, pid| {
            make_eligible(model, pid);
            for page in 20..25 {
                give(model, pid, page);
            }
            for page in [0, 7, 19] {
                read_in(model, page);
            }
            assert!(model.give_up_eligibility(pid));
            let owner = model.procs[pid].owner;
            assert_eq!(model.owners[owner].working_set, Some(8.0));
        });
    }

    #[test]
    fn exposure_adds_over_ranges_and_reads_each_position() {
        let mut e = Exposure::new(10);
        e.add(2, 5, 10);
        e.add(4, 8, 3);
        e.add(0, 10, 1);
        let at: Vec<u64> = (0..10).map(|i| e.at(i)).collect();
        assert_eq!(at, [1, 1, 11, 11, 14, 4, 4, 4, 1, 1]);
    }

    #[test]
    fn a_set_that_wraps_round_the_image_covers_the_text_in_two_ranges() {
        let text = shared().replace("set = 40", "set = 30");
        with_process_at(&text, SimTime::ZERO, |model, _, pid| {
            let resident = [0, 3, 6, 9, 12, 15, 18];
            for page in resident {
                read_in(model, page);
            }
            for _ in 0..200 {
                model.new_phase(pid);
                let t = &model.memory.frames.tables[pid];
                let text_pages: u32 = t.text_ranges.iter().map(|(a, b)| b - a).sum();
                assert_eq!(text_pages as usize + t.slots.len(), 30);
                assert!(t.slots.iter().all(|&page| page >= 20));
                assert!(t.text_ranges.len() <= 2 && t.text_ranges.iter().all(|(a, b)| a < b));
                // The working-set estimate's part of the text: the
                // resident pages within the ranges.
                let within = resident
                    .iter()
                    .filter(|&&page| t.text_ranges.iter().any(|&(a, b)| (a..b).contains(&page)))
                    .count();
                assert_eq!(model.memory.frames.texts[0].resident_in(t), within as u64);
            }
        });
    }

    #[test]
    fn a_fault_drawn_before_text_came_in_stands_as_often_as_the_missing_pages_fell() {
        with_two(|model, _, a, _| {
            let n = 40_000;
            let mut stood = 0;
            for _ in 0..n {
                model.memory.frames.tables[a].drawn_missing = 40;
                stood += u32::from(model.fault_stands(a, 10));
            }
            let p = 0.25;
            let seen = f64::from(stood) / f64::from(n);
            let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
            model.memory.frames.tables[a].drawn_missing = 40;
            assert!(model.fault_stands(a, 40), "nothing came in: it stands");
        });
    }

    #[test]
    fn a_text_page_is_found_referenced_from_every_sharer_s_exposure() {
        with_two(|model, _, a, b| {
            read_in(model, 5);
            let Pte::Resident(f) = model.memory.frames.texts[0].entries[5] else {
                panic!("resident");
            };
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            let burst = |pid, from: u64, to: u64| user_burst(pid, ms(from), ms(to));
            // A runs 10 ms and B 30 ms with the page in their sets: a
            // reference every millisecond over 40 pages each, so the page is
            // referenced at a rate of 1 per 40 ms of either's processor time.
            model.meter_work(&burst(a, 0, 10), ms(10));
            model.meter_work(&burst(b, 10, 40), ms(40));
            assert_eq!(model.memory.frames.texts[0].exposure(5), 40_000_000);
            // Exposure already added is not added again.
            model.meter_work(&burst(b, 10, 40), ms(40));
            assert_eq!(model.memory.frames.texts[0].exposure(5), 40_000_000);
            // Decided last with none of that exposure, or with half of it:
            // referenced since with probability 1 - e^-1, or 1 - e^-1/2.
            for (decided, expected) in [(0, 1.0_f64), (20, 0.5)] {
                let n = 20_000;
                let mut hits = 0;
                for _ in 0..n {
                    let frame = &mut model.memory.frames.frames[f as usize];
                    (frame.decided, frame.referenced) = (ms(decided), false);
                    model.decide_references(f);
                    hits += u32::from(model.memory.frames.frames[f as usize].referenced);
                    assert_eq!(model.memory.frames.frames[f as usize].decided, ms(40));
                }
                let p = 1.0 - (-expected).exp();
                let seen = f64::from(hits) / f64::from(n);
                let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
                assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
            }
        });
    }

    #[test]
    fn a_second_fault_on_a_text_page_being_read_waits_for_that_read() {
        with_two(|model, ctx, a, b| {
            let (source, from_file) = model.text_fault(a, 3, SimTime::ZERO);
            assert!(matches!(source, Source::Read(_)) && from_file);
            assert_eq!(model.memory.frames.texts[0].entries[3], Pte::Reading(NIL));
            let (source, _) = model.text_fault(b, 3, SimTime::ZERO);
            assert_eq!(source, Source::InTransit);
            // The first takes a frame and reads; the second waits for it.
            for (pid, source) in [(a, Source::read(0)), (b, Source::InTransit)] {
                let p = &mut model.memory.of[pid];
                model.memory.frames.tables[pid].faulting = 3;
                (p.fault_in_text, p.fault_source) = (true, source);
            }
            assert!(model.clock_take_frame(a, ctx));
            assert!(!model.wait_in_transit(b), "still being read");
            model.clock_place_page(a, SimTime::ZERO);
            assert_eq!(model.transit_done(a), [b]);
            assert!(model.transit_done(a).is_empty());
            assert!(matches!(
                model.memory.frames.texts[0].entries[3],
                Pte::Resident(_)
            ));
            assert_eq!(model.set_missing(b), 39);
        });
    }

    #[test]
    fn a_text_page_read_ends_the_faults_waiting_for_it_each_after_its_own_wait() {
        with_process_at(&shared(), SimTime::from_secs(1), |model, ctx, a| {
            let now = ctx.now();
            let b = model.spawn(0, model.procs[a].owner, true, now);
            let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
            // The first faulted on text page 3 at 200 ms and reads it; the
            // second faulted on it at 500 ms and waits for that read.
            let (source, _) = model.text_fault(a, 3, now);
            assert_eq!(model.text_fault(b, 3, now).0, Source::InTransit);
            for (pid, source, started) in [(a, source, ms(200)), (b, Source::InTransit, ms(500))] {
                model.recount(pid, now, Change::State(State::Fault));
                let p = &mut model.memory.of[pid];
                model.memory.frames.tables[pid].faulting = 3;
                p.fault_in_text = true;
                (p.fault_source, p.fault_started) = (source, started);
            }
            assert!(model.clock_take_frame(a, ctx));
            assert!(!model.wait_in_transit(b), "still being read");
            // The read ends at 1 s: both run on, after 800 and 500 ms.
            model.page_read(a, ctx);
            assert!(
                [a, b]
                    .iter()
                    .all(|&pid| model.procs.state(pid) != State::Fault)
            );
            let elapsed = &model.stats.fault_time;
            assert_eq!(elapsed.count(), 2);
            assert!((elapsed.mean() - 0.65).abs() < 1e-12, "{}", elapsed.mean());
        });
    }

    #[test]
    fn a_process_whose_fault_path_finds_its_page_still_being_read_leaves_the_processor() {
        with_two(|model, ctx, a, b| {
            let (source, _) = model.text_fault(a, 3, SimTime::ZERO);
            let p = &mut model.memory.of[a];
            model.memory.frames.tables[a].faulting = 3;
            (p.fault_in_text, p.fault_source) = (true, source);
            assert!(model.clock_take_frame(a, ctx));
            // The second process's fault path runs while the read is under
            // way: at its end the process waits for that read, off the
            // processor, and the read's end wakes it.
            assert_eq!(model.text_fault(b, 3, SimTime::ZERO).0, Source::InTransit);
            model.memory.frames.tables[b].faulting = 3;
            model.recount(b, SimTime::ZERO, Change::State(State::Running));
            model.cpus.take(0, model.procs[b].class);
            model.cpus.meter.busy.add(SimTime::ZERO, 1.0);
            let (memory, mut view) = model.memory_and_view(SimTime::ZERO);
            let cost = memory.note_fault(&mut view, b, Source::InTransit, true, false);
            let path = Effect::FaultPath {
                cpu: 0,
                pid: b,
                cost,
            };
            model.with_memory(ctx, |_, _, effects| effects.push(path));
            model.fault_path_done(0, b, ctx);
            assert!(model.cpus.running[0].is_none());
            assert_eq!(model.procs.state(b), State::Fault);
            model.clock_place_page(a, SimTime::ZERO);
            assert_eq!(model.transit_done(a), [b]);
        });
    }

    #[test]
    fn a_text_page_taken_without_a_bulk_store_is_read_from_the_program_again() {
        // Text is never written: with no bulk store to hold it, a page
        // taken is read from the program's file as at its first use.
        with_two(|model, _, a, _| {
            model.memory.frames.texts[0].entries[4] = Pte::Out;
            let program = model.memory.program_device(model.sys);
            assert_eq!(
                model.text_fault(a, 4, SimTime::ZERO),
                (Source::read(program), true)
            );
        });
    }

    /// `shared()` with a 16-page bulk store, a drum, in front of the disk.
    fn with_bulk_store() -> String {
        shared()
            .replace(
                "device = \"disk\"\n",
                "device = \"disk\"\n        swapper = false\n        bulk_store = \"drum\"\n        bulk_store_size = \"16KiB\"\n",
            )
            .replace(
                "[users]",
                "[[device]]\n        name = \"drum\"\n        rate = \"4MB/s\"\n        fault_cpu = \"0s\"\n        [users]",
            )
    }

    #[test]
    fn a_text_page_on_the_bulk_store_is_read_from_it_and_leaves_it() {
        with_process_at(&with_bulk_store(), SimTime::ZERO, |model, _, a| {
            model.memory.frames.texts[0].entries[6] = Pte::Bulk(0);
            model.memory.frames.bulk.used = 1;
            assert_eq!(
                model.text_fault(a, 6, SimTime::ZERO),
                (Source::read(device(model, "drum")), false)
            );
            assert_eq!(model.memory.frames.bulk.used, 0);
        });
    }

    #[test]
    fn a_text_page_moved_on_from_the_bulk_store_is_read_from_the_drives() {
        // The bulk store wrote it to the paging drives: it is read from
        // there, not from the program's file.
        with_process_at(&with_bulk_store(), SimTime::ZERO, |model, _, a| {
            model.memory.frames.texts[0].entries[7] = Pte::Out;
            assert_eq!(
                model.text_fault(a, 7, SimTime::ZERO),
                (Source::read(device(model, "disk")), false)
            );
        });
    }

    #[test]
    fn a_text_page_on_the_free_list_is_reclaimed_from_it() {
        let reclaiming = shared().replace(
            "replacement = \"clock\"",
            "replacement = \"clock\"\n        reclaim = true",
        );
        with_process_at(&reclaiming, SimTime::ZERO, |model, _, a| {
            read_in(model, 3);
            let Pte::Resident(f) = model.memory.frames.texts[0].entries[3] else {
                panic!("resident");
            };
            let free = model.memory.pool.frames;
            assert!(!model.unmap_frame(f), "text is never modified");
            assert_eq!(model.memory.frames.texts[0].entries[3], Pte::Free(f));
            let reclaims = model.stats.counters.reclaims;
            assert_eq!(
                model.text_fault(a, 3, SimTime::ZERO),
                (Source::Reclaim, false)
            );
            assert_eq!(model.stats.counters.reclaims, reclaims + 1);
            assert_eq!(model.memory.frames.texts[0].entries[3], Pte::Resident(f));
            assert_eq!(model.memory.pool.frames, free);
        });
    }

    #[test]
    fn an_invalidated_text_page_is_reclaimed_in_place() {
        with_two(|model, _, a, _| {
            read_in(model, 8);
            let Pte::Resident(f) = model.memory.frames.texts[0].entries[8] else {
                panic!("resident");
            };
            // As the hand leaves it, its use bit simulated.
            model.memory.frames.frames[f as usize].valid = false;
            model.memory.frames.texts[0].mark_missing(8);
            let reclaims = model.stats.counters.reclaims;
            assert_eq!(
                model.text_fault(a, 8, SimTime::ZERO),
                (Source::Reclaim, false)
            );
            assert_eq!(model.stats.counters.reclaims, reclaims + 1);
            assert!(model.memory.frames.frames[f as usize].valid);
        });
    }

    #[test]
    fn the_hand_passes_over_a_text_while_a_process_of_its_class_runs() {
        with_two(|model, _, a, _| {
            read_in(model, 5);
            let Pte::Resident(f) = model.memory.frames.texts[0].entries[5] else {
                panic!("resident");
            };
            assert!(model.open_at_hand(f));
            model.cpus.take(0, model.procs[a].class);
            model.cpus.running[0] = Some(user_burst(a, SimTime::ZERO, SimTime::from_secs(1)));
            assert!(!model.open_at_hand(f));
        });
    }
}
