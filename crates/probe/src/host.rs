//! The load indices of a real Linux machine, as the 1981 terminal probe
//! sampled them before each benchmark: users logged in, user processes,
//! processes running or ready, the load averages and free memory.
//!
//! Like the rest of this crate it does no I/O: the caller reads
//! `/proc/stat`, `/proc/loadavg`, `/proc/meminfo`, each process's
//! `/proc/PID/status` and the utmp file, and these functions make the
//! indices of what was read. The files are parsed by `procfs-core` (the
//! parsers of the `procfs` crate, which read any text, so captured files
//! serve as test fixtures) and `utmp-rs` (utmp records in the platform's
//! own layout).
//!
//! - **Users logged in**: the distinct user names of the utmp file's
//!   user-process records, as `who` lists them. Where there is no utmp
//!   file (many containers), the index is unknown, not 0.
//! - **User processes**: the processes whose real user id is at least a
//!   minimum (ordinary users' ids start at 1000 on most distributions),
//!   the probe's own left out; a process that exits while the table is
//!   read is not counted.
//! - **Runnable**: `procs_running` of `/proc/stat`, the processes running
//!   or ready to run.
//! - **Free memory**: `MemAvailable` of `/proc/meminfo` (memory that can
//!   be had without swapping), in bytes.

use procfs_core::{ExplicitSystemInfo, FromBufRead, FromBufReadSI, FromRead};
use std::collections::BTreeSet;
use std::fmt;

/// A file that could not be made sense of: which, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    /// The file, as the machine names it (`/proc/stat`).
    pub file: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for HostError {}

fn unreadable(file: &str, message: impl fmt::Display) -> HostError {
    HostError {
        file: file.to_string(),
        message: message.to_string(),
    }
}

/// The processes running or ready to run, from the text of `/proc/stat`.
pub fn runnable(stat: &str) -> Result<u32, HostError> {
    // Only the counts are read: the boot time and tick rate the parser
    // asks for do not enter them.
    let info = ExplicitSystemInfo {
        boot_time_secs: 0,
        ticks_per_second: 100,
        page_size: 4096,
        is_little_endian: cfg!(target_endian = "little"),
    };
    let stats = procfs_core::KernelStats::from_buf_read(stat.as_bytes(), &info)
        .map_err(|e| unreadable("/proc/stat", e))?;
    stats.procs_running.ok_or_else(|| {
        unreadable(
            "/proc/stat",
            "no procs_running line (a kernel before 2.5.45)",
        )
    })
}

/// The 1-, 5- and 15-minute load averages, from the text of
/// `/proc/loadavg`.
pub fn load_averages(loadavg: &str) -> Result<[f64; 3], HostError> {
    let load = procfs_core::LoadAverage::from_read(loadavg.as_bytes())
        .map_err(|e| unreadable("/proc/loadavg", e))?;
    // Parsed as f32: back to the file's own decimals (1.27, not
    // 1.2699999809265137), by way of f32's shortest text.
    Ok([load.one, load.five, load.fifteen].map(|x| x.to_string().parse().unwrap_or(f64::from(x))))
}

/// Memory available without swapping \[bytes\], from the text of
/// `/proc/meminfo`.
pub fn free_memory(meminfo: &str) -> Result<u64, HostError> {
    let info = procfs_core::Meminfo::from_buf_read(meminfo.as_bytes())
        .map_err(|e| unreadable("/proc/meminfo", e))?;
    info.mem_available.ok_or_else(|| {
        unreadable(
            "/proc/meminfo",
            "no MemAvailable line (a kernel before 3.14)",
        )
    })
}

/// A process's real user id, from the text of its `/proc/PID/status`.
pub fn real_uid(status: &str) -> Result<u32, HostError> {
    procfs_core::process::Status::from_buf_read(status.as_bytes())
        .map(|s| s.ruid)
        .map_err(|e| unreadable("/proc/PID/status", e))
}

/// The distinct users with a login session, from the bytes of a utmp
/// file.
pub fn users_logged_in(utmp: &[u8]) -> Result<u32, HostError> {
    let entries = utmp_rs::parse_from_reader(utmp).map_err(|e| unreadable("utmp", e))?;
    let users: BTreeSet<String> = entries
        .into_iter()
        .filter_map(|entry| match entry {
            utmp_rs::UtmpEntry::UserProcess { user, .. } => Some(user),
            _ => None,
        })
        .collect();
    Ok(users.len() as u32)
}

/// The "user processes" index: of `processes` (each a pid and its real
/// user id, `None` if it exited while the table was read), those of an
/// ordinary user, `min_uid` or above, other than the pids in `leave_out`
/// (the probe and what it runs).
pub fn user_processes(
    processes: impl IntoIterator<Item = (u32, Option<u32>)>,
    min_uid: u32,
    leave_out: &[u32],
) -> u32 {
    processes
        .into_iter()
        .filter(|&(pid, uid)| uid.is_some_and(|u| u >= min_uid) && !leave_out.contains(&pid))
        .count() as u32
}

/// The users-logged-in index where there is no utmp file: the distinct
/// real user ids, `min_uid` or above, of `processes` (as for
/// [`user_processes`]).
pub fn process_owners(
    processes: impl IntoIterator<Item = (u32, Option<u32>)>,
    min_uid: u32,
    leave_out: &[u32],
) -> u32 {
    let owners: BTreeSet<u32> = processes
        .into_iter()
        .filter(|(pid, _)| !leave_out.contains(pid))
        .filter_map(|(_, uid)| uid.filter(|&u| u >= min_uid))
        .collect();
    owners.len() as u32
}

/// Where the users-logged-in index came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsersFrom {
    /// The utmp file's login sessions.
    Utmp,
    /// No utmp file: the distinct owners of user processes
    /// ([`process_owners`]).
    Owners,
}

impl fmt::Display for UsersFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UsersFrom::Utmp => "utmp",
            UsersFrom::Owners => "owners",
        })
    }
}

/// How a benchmark run on the machine ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It exited with status 0.
    Ok,
    /// It exited with this status, not 0 (127: the shell found no such
    /// command).
    Exit(i32),
    /// A signal ended it, not sent by the probe.
    Signal(i32),
    /// It ran past the probe's timeout and was killed.
    Timeout,
    /// The probe was stopped by a signal while it ran, and killed it.
    Interrupted,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Exit(code) => write!(f, "exit {code}"),
            Outcome::Signal(signal) => write!(f, "signal {signal}"),
            Outcome::Timeout => f.write_str("timeout"),
            Outcome::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// One benchmark run on the machine, with the load noted before it: a
/// row of the probe.csv `tpsim probe` writes, the columns of the
/// simulated probe's first and the machine's own after them.
#[derive(Clone, Debug, PartialEq)]
pub struct HostObservation {
    /// The benchmark's name.
    pub benchmark: String,
    /// When it started, in seconds since the Unix epoch.
    pub start: f64,
    /// Users logged in.
    pub users: u32,
    /// Where `users` came from.
    pub users_from: UsersFrom,
    /// User processes, the probe's own left out.
    pub processes: u32,
    /// Processes running or ready (`procs_running`).
    pub runnable: u32,
    /// `MemAvailable` \[bytes\].
    pub free_memory: u64,
    /// The load averages over 1, 5 and 15 minutes.
    pub load: [f64; 3],
    /// The load ramp's workers running (0 without a ramp).
    pub workers: u32,
    /// Its elapsed time \[s\].
    pub elapsed: f64,
    /// Its processor time in user mode, its children's included \[s\].
    pub user: f64,
    /// Its processor time in the kernel, its children's included \[s\].
    pub system: f64,
    /// How it ended.
    pub outcome: Outcome,
    /// The step the times were cut to (`tpsim probe --resolution`), if
    /// coarser than the clocks': the table gives them at that resolution.
    pub resolution: Option<std::time::Duration>,
}

impl HostObservation {
    /// Decimal places of seconds the clocks resolve: the monotonic clock
    /// the elapsed time is read from counts nanoseconds, `getrusage`'s
    /// processor times microseconds; the start, seconds since 1970, is
    /// written to the microsecond (a `f64` holds no more of it).
    const ELAPSED_DECIMALS: usize = 9;
    const CPU_DECIMALS: usize = 6;
    /// Decimal places of the start's seconds.
    pub const START_DECIMALS: usize = 6;

    /// The decimal places of seconds to write for a time its clock gives
    /// to `native` places: fewer where the times were cut to a coarser
    /// resolution (10 ms: 2 places), never more than the clock resolves.
    pub fn decimals(&self, native: usize) -> usize {
        let Some(step) = self.resolution else {
            return native;
        };
        let nanos = step.as_nanos();
        let places = (0..=9)
            .find(|&d| nanos % 10_u128.pow(9 - d) == 0)
            .unwrap_or(9) as usize;
        places.min(native)
    }

    /// Decimal places of the elapsed time.
    pub fn elapsed_decimals(&self) -> usize {
        self.decimals(Self::ELAPSED_DECIMALS)
    }

    /// Decimal places of the processor times.
    pub fn cpu_decimals(&self) -> usize {
        self.decimals(Self::CPU_DECIMALS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The files as a two-processor machine with 24 GiB gave them, the
    // status file's user ids set to 1000.
    const STAT: &str = include_str!("../fixtures/host/stat");
    const LOADAVG: &str = include_str!("../fixtures/host/loadavg");
    const MEMINFO: &str = include_str!("../fixtures/host/meminfo");
    const STATUS: &str = include_str!("../fixtures/host/status");

    /// A utmp record in glibc's x86-64 layout (384 bytes): type, pid,
    /// line, id, user, host, exit status, session, time, address.
    fn record(kind: i16, pid: i32, line: &str, user: &str) -> Vec<u8> {
        fn field(text: &str, size: usize) -> Vec<u8> {
            let mut f = text.as_bytes().to_vec();
            f.resize(size, 0);
            f
        }
        let mut r = Vec::with_capacity(384);
        r.extend(kind.to_ne_bytes());
        r.extend([0, 0]);
        r.extend(pid.to_ne_bytes());
        r.extend(field(line, 32));
        r.extend(field(&line[line.len().saturating_sub(4)..], 4));
        r.extend(field(user, 32));
        r.extend(field("", 256));
        r.extend([0; 4]);
        r.extend(pid.to_ne_bytes());
        r.extend(1_700_000_000_i32.to_ne_bytes());
        r.extend(0_i32.to_ne_bytes());
        r.extend([0; 16]);
        r.extend([0; 20]);
        assert_eq!(r.len(), 384);
        r
    }

    /// utmp's record types (`utmp.h`).
    const LOGIN_PROCESS: i16 = 6;
    const USER_PROCESS: i16 = 7;
    const DEAD_PROCESS: i16 = 8;

    #[test]
    fn the_system_files_give_their_indices() {
        assert_eq!(runnable(STAT), Ok(3));
        // The file's decimals, not f32's nearest values.
        assert_eq!(load_averages(LOADAVG), Ok([3.99, 2.96, 2.15]));
        assert_eq!(free_memory(MEMINFO), Ok(24_053_020 * 1024));
        assert_eq!(real_uid(STATUS), Ok(1000));
    }

    #[test]
    fn without_utmp_users_are_the_distinct_owners_of_user_processes() {
        // Two of uid 1000 (one the probe's own), one of 1001, one that
        // went mid-scan, and root's.
        let processes = [
            (1, Some(0)),
            (10, Some(1000)),
            (11, Some(1000)),
            (12, Some(1001)),
            (13, None),
        ];
        assert_eq!(process_owners(processes, 1000, &[11]), 2);
        assert_eq!(process_owners(processes, 1000, &[11, 12]), 1);
        assert_eq!(process_owners(processes, 0, &[]), 3);
        assert_eq!(process_owners(processes, 1002, &[]), 0);
    }

    #[test]
    fn outcomes_read_as_the_status_column_says_them() {
        let shown: Vec<String> = [
            Outcome::Ok,
            Outcome::Exit(127),
            Outcome::Signal(9),
            Outcome::Timeout,
            Outcome::Interrupted,
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            shown,
            ["ok", "exit 127", "signal 9", "timeout", "interrupted"]
        );
        assert_eq!(
            (UsersFrom::Utmp.to_string(), UsersFrom::Owners.to_string()),
            ("utmp".into(), "owners".into())
        );
    }

    #[test]
    fn a_file_without_its_line_says_which_file_and_what_is_missing() {
        let old = STAT.replace("procs_running 3\n", "");
        let e = runnable(&old).unwrap_err();
        assert_eq!(e.file, "/proc/stat");
        assert!(e.message.contains("procs_running"), "{e}");
        let old = MEMINFO.replace("MemAvailable:   24053020 kB\n", "");
        assert!(
            free_memory(&old)
                .unwrap_err()
                .message
                .contains("MemAvailable")
        );
        assert!(load_averages("garbage").is_err());
    }

    #[test]
    fn users_are_the_distinct_names_of_user_process_records() {
        let mut utmp = Vec::new();
        utmp.extend(record(LOGIN_PROCESS, 10, "tty1", "LOGIN"));
        utmp.extend(record(USER_PROCESS, 11, "pts/0", "alice"));
        utmp.extend(record(USER_PROCESS, 12, "pts/1", "alice"));
        utmp.extend(record(USER_PROCESS, 13, "pts/2", "bob"));
        utmp.extend(record(DEAD_PROCESS, 14, "pts/3", "carol"));
        assert_eq!(users_logged_in(&utmp), Ok(2));
        assert_eq!(users_logged_in(&[]), Ok(0));
        assert!(users_logged_in(&utmp[..100]).is_err(), "a record cut short");
    }

    #[test]
    fn user_processes_leave_out_system_ids_the_probe_and_the_vanished() {
        let table = [
            (1, Some(0)),      // init
            (300, Some(999)),  // a system service, below the minimum
            (400, Some(1000)), // a user's shell
            (401, Some(1001)), // another user's job
            (402, None),       // exited while the table was read
            (500, Some(1000)), // the probe itself
        ];
        assert_eq!(user_processes(table, 1000, &[500]), 2);
        assert_eq!(user_processes(table, 0, &[]), 5);
        assert_eq!(user_processes(table, 1001, &[]), 1);
    }
}
