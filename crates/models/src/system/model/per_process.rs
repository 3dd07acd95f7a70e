//! A part's own state for each process, in a table of its own indexed by
//! the process's slot, so that `Process` holds only what every process
//! has and each part (the scheduler, eligibility, memory) owns the rest.

use std::ops::{Index, IndexMut};

/// What a part keeps for each process, indexed by the process's slot in
/// the process table. A slot reused by a new process gets the new
/// process's entry at [`PerProcess::insert`]; an entry of a slot whose
/// process has gone is stale until then and never read.
#[derive(Debug)]
pub(super) struct PerProcess<T>(Vec<T>);

impl<T> Default for PerProcess<T> {
    fn default() -> Self {
        PerProcess(Vec::new())
    }
}

impl<T> PerProcess<T> {
    /// Sets the entry of `pid`, a slot just given to a new process: the
    /// process table hands out a vacant slot or the one after its last, so
    /// a table that gets every new process grows by one at most.
    pub(super) fn insert(&mut self, pid: usize, entry: T) {
        match pid.cmp(&self.0.len()) {
            std::cmp::Ordering::Less => self.0[pid] = entry,
            std::cmp::Ordering::Equal => self.0.push(entry),
            std::cmp::Ordering::Greater => {
                panic!("slot {pid} is past the table's end, {}", self.0.len())
            }
        }
    }
}

impl<T> Index<usize> for PerProcess<T> {
    type Output = T;

    fn index(&self, pid: usize) -> &T {
        &self.0[pid]
    }
}

impl<T> IndexMut<usize> for PerProcess<T> {
    fn index_mut(&mut self, pid: usize) -> &mut T {
        &mut self.0[pid]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_slot_gets_the_new_process_s_entry() {
        let mut t = PerProcess::default();
        t.insert(0, 'a');
        t.insert(1, 'b');
        t.insert(0, 'c');
        assert_eq!((t[0], t[1]), ('c', 'b'));
        t[1] = 'd';
        assert_eq!(t[1], 'd');
    }

    #[test]
    #[should_panic(expected = "past the table's end")]
    fn a_slot_past_the_end_is_a_bug() {
        let mut t = PerProcess::default();
        t.insert(1, 'a');
    }
}
