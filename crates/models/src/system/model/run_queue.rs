//! The processes ready for a processor, in the order they are served, with
//! removal of any of them (the swapper takes runnable processes out of
//! memory) in logarithmic time.

use std::collections::BTreeMap;

/// Ready processes, first come first served.
#[derive(Debug, Default)]
pub(super) struct RunQueue {
    /// Process by ticket; tickets are handed out in increasing order.
    queue: BTreeMap<u64, usize>,
    next_ticket: u64,
}

impl RunQueue {
    /// Puts `pid` at the back; the ticket returned takes it out again.
    pub(super) fn push_back(&mut self, pid: usize) -> u64 {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.queue.insert(ticket, pid);
        ticket
    }

    /// Takes the process at the front.
    pub(super) fn pop_front(&mut self) -> Option<usize> {
        self.queue.pop_first().map(|(_, pid)| pid)
    }

    /// Takes out the process queued with `ticket`.
    pub(super) fn remove(&mut self, ticket: u64, pid: usize) {
        let removed = self.queue.remove(&ticket);
        assert_eq!(removed, Some(pid), "the ticket is the process's");
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_in_first_out_with_removal_from_the_middle() {
        let mut q = RunQueue::default();
        let tickets: Vec<u64> = (10..15).map(|pid| q.push_back(pid)).collect();
        q.remove(tickets[2], 12);
        assert_eq!(q.pop_front(), Some(10));
        let _ = q.push_back(10);
        let order: Vec<usize> = std::iter::from_fn(|| q.pop_front()).collect();
        assert_eq!(order, [11, 13, 14, 10]);
        assert!(q.is_empty());
    }
}
