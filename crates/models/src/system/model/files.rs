//! The file system: programs' files and exec's reads of them.
//!
//! Under swapping a new command gets memory for its image and exec reads
//! the image from its program's file, on the programs' device (or, with
//! none named, the swap device or a paging drive), before the command
//! runs: V7's `exec` reads text and initialised data from the file. Under
//! paging exec reads nothing at once: the image comes in by faults, a
//! page's first touch read from the program's file (see `paging` and
//! `frames`). What a file read costs beyond its transfer (a buffer cache,
//! a text table keeping a text in memory between its users) belongs here.

use super::per_process::PerProcess;
use super::{Context, Event, Purpose, State, SystemModel, scheduler};

/// Exec's read of one process's image.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Exec {
    /// The image has still to be read from the program's file (swapping:
    /// a new command).
    pub(super) pending: bool,
    /// The bytes brought into memory for it, which exec reads.
    pub(super) bytes: u64,
}

/// What the file system keeps: each process's exec.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub(super) exec: PerProcess<Exec>,
}

impl SystemModel<'_> {
    /// Exec under swapping: `pid`, in memory, reads its image (its text
    /// too unless a copy is in memory already) from the program's file,
    /// and runs when it is in.
    pub(super) fn start_exec(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.recount(pid, ctx.now(), |p| p.state = State::Io);
        let bytes = self.files.exec[pid].bytes as f64;
        let programs = self.program_device();
        self.request(programs, Purpose::Exec { pid }, bytes, ctx);
    }

    /// Exec's read for `pid` is done: the command runs.
    pub(super) fn exec_done(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.files.exec[pid].pending = false;
        self.sched[pid].woken = Some(scheduler::AFTER_DISK);
        self.become_runnable(pid, ctx);
    }

    /// The device a program's file is read from: the programs' device, or
    /// one of the paging drives the programs are spread over.
    pub(super) fn program_device(&mut self) -> usize {
        match self.sys.memory.programs {
            Some(device) => device,
            None => self.swap_device(),
        }
    }
}
