//! The process table: each live process's record by its slot, and beside
//! the records, in a dense table of their own, the two fields read at
//! nearly every event: the process's state and its processor time in user
//! mode. With thousands of processes the records do not stay in the
//! cache, while the packed fields (16 bytes a process) do: the clock's
//! hand, passing the frames of owners at random, reads only these of a
//! process under a uniform pattern (docs/PERFORMANCE.md, "The scale past
//! its start").

use super::per_process::PerProcess;
use super::{Process, State};
use slab::Slab;
use std::ops::{Index, IndexMut};
use tpsim_core::SimTime;

/// The live processes, by slot.
#[derive(Debug, Default)]
pub(super) struct ProcessTable {
    records: Slab<Process>,
    packed: PerProcess<Packed>,
}

/// What is read of a process at nearly every event.
#[derive(Clone, Copy, Debug)]
struct Packed {
    state: State,
    /// Processor time it has used in user mode.
    cpu_user: SimTime,
}

impl ProcessTable {
    /// Enters a new process in `state`, with no processor time used yet,
    /// returning its slot.
    pub(super) fn insert(&mut self, record: Process, state: State) -> usize {
        let pid = self.records.insert(record);
        let packed = Packed {
            state,
            cpu_user: SimTime::ZERO,
        };
        self.packed.insert(pid, packed);
        pid
    }

    /// Removes the process in slot `pid`, returning its record; its
    /// packed entry is never read again, and is overwritten when the slot
    /// is given to a new process.
    pub(super) fn remove(&mut self, pid: usize) -> Process {
        self.records.remove(pid)
    }

    /// The record of the process in slot `pid`, if it lives.
    pub(super) fn get(&self, pid: usize) -> Option<&Process> {
        self.records.get(pid)
    }

    /// The live processes' slots and records, by slot.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &Process)> {
        self.records.iter()
    }

    /// The state of the live process in slot `pid`.
    #[inline]
    pub(super) fn state(&self, pid: usize) -> State {
        self.live(pid).state
    }

    /// Puts the live process in slot `pid` in `state`.
    #[inline]
    pub(super) fn set_state(&mut self, pid: usize, state: State) {
        self.live_mut(pid).state = state;
    }

    /// The processor time the live process in slot `pid` has used in
    /// user mode.
    #[inline]
    pub(super) fn cpu_user(&self, pid: usize) -> SimTime {
        self.live(pid).cpu_user
    }

    /// Adds `work` to the processor time `pid` has used in user mode.
    #[inline]
    pub(super) fn add_cpu_user(&mut self, pid: usize, work: SimTime) {
        self.live_mut(pid).cpu_user += work;
    }

    /// The packed entry of `pid`, a live process (debug builds check: the
    /// entry of a slot whose process has gone is stale).
    #[inline]
    fn live(&self, pid: usize) -> &Packed {
        debug_assert!(self.records.contains(pid), "slot {pid} holds no process");
        &self.packed[pid]
    }

    #[inline]
    fn live_mut(&mut self, pid: usize) -> &mut Packed {
        debug_assert!(self.records.contains(pid), "slot {pid} holds no process");
        &mut self.packed[pid]
    }

    /// Sets the processor time `pid` has used in user mode (tests).
    #[cfg(test)]
    pub(super) fn set_cpu_user(&mut self, pid: usize, time: SimTime) {
        self.live_mut(pid).cpu_user = time;
    }
}

impl Index<usize> for ProcessTable {
    type Output = Process;

    fn index(&self, pid: usize) -> &Process {
        &self.records[pid]
    }
}

impl IndexMut<usize> for ProcessTable {
    fn index_mut(&mut self, pid: usize) -> &mut Process {
        &mut self.records[pid]
    }
}
