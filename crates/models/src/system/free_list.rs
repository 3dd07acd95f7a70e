//! A free list threaded through the slots of a table: the buffer cache's
//! buffers and memory's frames each keep their links, and the list keeps
//! its two ends. Pushing at either end, taking a slot off from anywhere
//! and taking the head are O(1), with no allocation.

/// No slot: the end of the list, or the links of a slot not on it.
pub(crate) const NIL: u32 = u32::MAX;

/// A slot's neighbours on the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Links {
    prev: u32,
    next: u32,
}

impl Links {
    /// The links of a slot not on the list.
    pub(crate) const NONE: Links = Links {
        prev: NIL,
        next: NIL,
    };
}

/// A slot of a table with a free list through it.
pub(crate) trait Linked {
    fn links(&self) -> Links;
    fn links_mut(&mut self) -> &mut Links;
}

/// The two ends of a free list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeList {
    head: u32,
    tail: u32,
}

impl FreeList {
    /// An empty list.
    pub(crate) fn new() -> FreeList {
        FreeList {
            head: NIL,
            tail: NIL,
        }
    }

    /// The slot at the head, if any.
    pub(crate) fn head(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// The slot after `i` on the list, if any.
    pub(crate) fn after<T: Linked>(slots: &[T], i: u32) -> Option<u32> {
        let next = slots[i as usize].links().next;
        (next != NIL).then_some(next)
    }

    /// Puts slot `i`, not on the list, at its tail.
    pub(crate) fn push_back<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        *slots[i as usize].links_mut() = Links {
            prev: self.tail,
            next: NIL,
        };
        match self.tail {
            NIL => self.head = i,
            t => slots[t as usize].links_mut().next = i,
        }
        self.tail = i;
    }

    /// Puts slot `i`, not on the list, at its head.
    pub(crate) fn push_front<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        *slots[i as usize].links_mut() = Links {
            prev: NIL,
            next: self.head,
        };
        match self.head {
            NIL => self.tail = i,
            h => slots[h as usize].links_mut().prev = i,
        }
        self.head = i;
    }

    /// Takes slot `i`, on the list, off it.
    pub(crate) fn unlink<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        let Links { prev, next } = slots[i as usize].links();
        match prev {
            NIL => self.head = next,
            p => slots[p as usize].links_mut().next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => slots[n as usize].links_mut().prev = prev,
        }
        *slots[i as usize].links_mut() = Links::NONE;
    }

    /// The slot at the head, taken off the list.
    pub(crate) fn pop_front<T: Linked>(&mut self, slots: &mut [T]) -> Option<u32> {
        let head = self.head()?;
        self.unlink(slots, head);
        Some(head)
    }

    /// Which slots are on the list, checking its links on the way (debug
    /// builds).
    ///
    /// # Panics
    /// If a slot's links disagree with its neighbours', a slot is on the
    /// list twice, or the tail is not the last slot.
    #[cfg(debug_assertions)]
    pub(crate) fn members<T: Linked>(&self, slots: &[T]) -> Vec<bool> {
        let mut on_list = vec![false; slots.len()];
        let (mut i, mut prev) = (self.head, NIL);
        while i != NIL {
            assert_eq!(
                slots[i as usize].links().prev,
                prev,
                "the free list's links"
            );
            assert!(!on_list[i as usize], "a slot is on the free list once");
            on_list[i as usize] = true;
            (prev, i) = (i, slots[i as usize].links().next);
        }
        assert_eq!(self.tail, prev, "the free list's tail");
        on_list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Slot(Links);

    impl Linked for Slot {
        fn links(&self) -> Links {
            self.0
        }
        fn links_mut(&mut self) -> &mut Links {
            &mut self.0
        }
    }

    fn order(list: &FreeList, slots: &[Slot]) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = list.head();
        while let Some(s) = i {
            out.push(s);
            i = FreeList::after(slots, s);
        }
        out
    }

    #[test]
    fn slots_join_at_either_end_and_leave_from_anywhere() {
        let mut slots: Vec<Slot> = (0..5).map(|_| Slot(Links::NONE)).collect();
        let mut list = FreeList::new();
        assert_eq!(list.pop_front(&mut slots), None);
        for i in [1, 2, 3] {
            list.push_back(&mut slots, i);
        }
        list.push_front(&mut slots, 0);
        list.push_back(&mut slots, 4);
        assert_eq!(order(&list, &slots), [0, 1, 2, 3, 4]);
        list.unlink(&mut slots, 2);
        list.unlink(&mut slots, 4);
        assert_eq!(slots[2].0, Links::NONE);
        assert_eq!(order(&list, &slots), [0, 1, 3]);
        assert_eq!(list.members(&slots), [true, true, false, true, false]);
        assert_eq!(list.pop_front(&mut slots), Some(0));
        list.unlink(&mut slots, 3);
        assert_eq!(list.pop_front(&mut slots), Some(1));
        assert_eq!(list.head(), None);
        assert_eq!(list.members(&slots), [false; 5]);
    }
}
