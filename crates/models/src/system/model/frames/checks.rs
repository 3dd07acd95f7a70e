//! The frames' invariants, rechecked after events in debug builds (as
//! the model's `invariants` module says when).

use super::{Frames, MemoryState, PageTable, Pages, Pte, Source, Use, Whose, bulk_capacity};

impl MemoryState<'_> {
    /// Rechecks memory as frames (debug builds), the live processes being
    /// those in slots `pids`.
    pub(in crate::system::model) fn check_frames(&self, pids: impl Iterator<Item = usize>) {
        let processes: Vec<(usize, Pages)> = pids.map(|pid| (pid, self.of[pid].held)).collect();
        let texts: Vec<Pages> = self.texts.iter().map(|t| t.held).collect();
        if self.paging().kluster <= 1 {
            for &(pid, _) in &processes {
                assert!(
                    self.frames.tables[pid].klustered.is_empty(),
                    "pages klustered without klustering"
                );
            }
        }
        self.frames.check(
            self.pool.frames,
            &processes,
            &texts,
            bulk_capacity(self.paging()).map(|(_, capacity)| capacity),
            |pid| self.of[pid].fault_source == Source::InTransit,
        );
    }
}

impl Frames {
    /// Checks the frames, the free list, the page tables and the bulk
    /// store against each other, and against what their owners count
    /// (debug builds): `free` frames in the pool, the pages each live
    /// process holds (`processes`, by slot) and each class's text holds
    /// (`texts`), the bulk store's capacity if it has one, and whether a
    /// process's fault waits for another's read of a text page.
    pub(super) fn check(
        &self,
        free: u64,
        processes: &[(usize, Pages)],
        texts: &[Pages],
        bulk_capacity: Option<u64>,
        waits_in_transit: impl Fn(usize) -> bool,
    ) {
        assert_eq!(self.free_count(), free, "the free list");
        for (f, frame) in self.frames.iter().enumerate() {
            let f = f as u32;
            if frame.owner.is_nobody() {
                assert_eq!(frame.use_, Use::Free, "a frame in use has an owner");
                continue;
            }
            let entry = match frame.owner.whose() {
                Whose::Process(pid) => self.tables[pid].entry(frame.page as usize),
                Whose::Text(class) => self.texts[class].entries[frame.page as usize],
            };
            let expected = match frame.use_ {
                Use::Free => Pte::Free(f),
                Use::Resident => Pte::Resident(f),
                Use::Reading => Pte::Reading(f),
            };
            assert_eq!(entry, expected);
        }
        self.check_texts(texts, waits_in_transit);
        let on_bulk = processes
            .iter()
            .flat_map(|&(pid, _)| self.tables[pid].entries())
            .chain(self.texts.iter().flat_map(|t| t.entries.iter().copied()))
            .filter(|e| matches!(e, Pte::Bulk(_)))
            .count() as u64;
        assert_eq!(on_bulk, self.bulk.used, "pages on the bulk store");
        if let Some(capacity) = bulk_capacity {
            assert!(
                on_bulk <= capacity,
                "the bulk store holds at most its capacity"
            );
        }
        for &(pid, held) in processes {
            self.check_table(&self.tables[pid], held);
        }
    }

    /// Checks a process's page table against the frames and against
    /// `held`, the pages it counts (debug builds).
    fn check_table(&self, t: &PageTable, held: Pages) {
        if let Some(w) = &t.weighted {
            let missing: u64 = (0..t.slots.len())
                .map(|i| (w.first as usize + i) % t.len())
                .enumerate()
                .filter(|&(_, page)| t.slot_of(page as u32) >= t.valid)
                .map(|(i, _)| w.weights[i])
                .sum();
            assert_eq!(w.missing.total, missing, "the missing pages' weights");
            assert_eq!(w.missing.prefix(t.slots.len()), missing);
        }
        let resident = t
            .entries()
            .filter(|e| matches!(e, Pte::Resident(_)))
            .count() as u64;
        assert_eq!(resident, held.resident, "resident pages");
        for (i, &page) in t.slots.iter().enumerate() {
            assert_eq!(t.slot_of(page), i as u32);
            let valid = matches!(t.entry(page as usize),
                Pte::Resident(f) if self.frames[f as usize].valid);
            assert_eq!(valid, (i as u32) < t.valid, "valid pages first");
        }
    }
}
