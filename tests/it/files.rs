//! The file system's buffer cache in the time-sharing model: exec under
//! swapping reads a program's file block by block through it, exactly in
//! deterministic cases, and the cache's traffic adds up under contention.

use crate::{inline_system, run_system as run, seed};
use tpsim::models::summary::{FileTraffic, Summary};
use tpsim::models::system::simulate;

/// One user, memory to spare, a 10 ms seek and 1 MB/s: a 5 KiB image of
/// 10 blocks of 512 bytes, its text the first 2 KiB (4 blocks).
pub const CACHED: &str = r#"
    name = "cached"
    [run]
    end_time = "40s"
    [system]
    quantum = "100ms"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "200KiB"
    kernel = "50KiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 1
    think = { det = { value = "10s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { det = { value = "1s" } }
    size = "5KiB"
    text = "2KiB"
    [files]
    buffers = 20
    copy_rate = "1MB/s"
"#;

/// A block's transfer and a block's copy \[s\].
const TRANSFER: f64 = 0.010 + 512.0 / 1e6;
const COPY: f64 = 512.0 / 1e6;

fn program_traffic(s: &Summary) -> &FileTraffic {
    let files = s.files.as_ref().expect("a cache reports its traffic");
    assert_eq!(files.traffic.len(), 1);
    assert_eq!(files.traffic[0].kind, "program");
    &files.traffic[0]
}

/// Asserts that three commands completed, the first taking `first` and
/// the two later ones `later` each, to the nanosecond on average.
fn assert_three_commands(s: &Summary, first: f64, later: f64) {
    let (mean, completions) = job_response(s);
    assert_eq!(completions, 3);
    let exact = (first + 2.0 * later) / 3.0;
    assert!((mean - exact).abs() < 1e-9, "{mean} vs {exact}");
}

fn job_response(s: &Summary) -> (f64, u64) {
    let job = s.classes.iter().find(|c| c.name == "job").unwrap();
    (job.mean_response.unwrap(), job.completions)
}

#[test]
fn exec_reads_the_program_block_by_block_through_the_cache_to_the_nanosecond() {
    // The first command's exec finds nothing in the cache: ten reads of a
    // block, one after the other (from the second on, the next is read
    // ahead, and waited for in transit); then a switch, the ten copies in
    // the kernel and the command's second. The command ends, its text
    // goes, but its blocks stay in the cache: the two later commands read
    // all ten from it, costing their copies alone.
    for (read_ahead, misses, in_transit) in [("true", 2, 8), ("false", 10, 0)] {
        let text = CACHED.replace(
            "copy_rate = \"1MB/s\"",
            &format!("copy_rate = \"1MB/s\"\n    read_ahead = {read_ahead}"),
        );
        let s = run(&inline_system(&text), 0);
        let first = 10.0 * TRANSFER + 0.001 + 10.0 * COPY + 1.0;
        let later = 0.001 + 10.0 * COPY + 1.0;
        assert_three_commands(&s, first, later);
        let t = program_traffic(&s);
        assert_eq!(
            (
                t.reads,
                t.hits,
                t.in_transit,
                t.misses,
                t.read_aheads,
                t.writes
            ),
            (30, 20, in_transit, misses, 10 - misses, 0),
            "read_ahead = {read_ahead}: {t:?}"
        );
        assert!((t.hit_ratio - 20.0 / 30.0).abs() < 1e-12);
        // The copies' processor time is the kernel's, 30 blocks' worth.
        let cpu = s.cpu.as_ref().unwrap();
        let copies = cpu.buffer_copies.unwrap() * 40.0;
        assert!((copies - 30.0 * COPY).abs() < 1e-12, "{cpu:?}");
        assert!((cpu.user * 40.0 - 3.0).abs() < 1e-12, "{cpu:?}");
        // The disk moved the first exec's ten blocks and nothing else.
        let disk = &s.stations[1];
        assert_eq!(disk.completions, 10, "{disk:?}");
    }
}

#[test]
fn exec_reads_the_text_and_data_and_clears_the_empty_pages_to_the_nanosecond() {
    // 60% of the image's three private pages start empty: two pages (bss
    // and stack), which exec clears at 0.3 ms each, reading only the text
    // and the initialised data, 3 KiB of the 5: six blocks of 512 bytes.
    let text = CACHED
        .replace(
            "text = \"2KiB\"\n",
            "text = \"2KiB\"\n    zero_fill = 0.6\n",
        )
        .replace(
            "device = \"disk\"",
            "device = \"disk\"\n    clear_cpu = \"0.3ms\"",
        );
    let clear = 2.0 * 0.0003;
    // Through the cache: the first exec reads six blocks from the disk,
    // the later two find them in the cache; each pays a switch, the
    // clearing, its six copies, and its second.
    let s = run(&inline_system(&text), 0);
    let first = 6.0 * TRANSFER + 0.001 + clear + 6.0 * COPY + 1.0;
    let later = 0.001 + clear + 6.0 * COPY + 1.0;
    assert_three_commands(&s, first, later);
    let t = program_traffic(&s);
    assert_eq!(
        (t.reads, t.hits, t.misses + t.read_aheads),
        (18, 12, 6),
        "{t:?}"
    );
    assert_eq!(s.stations[1].completions, 6);
    let cpu = s.cpu.as_ref().unwrap();
    let clears = cpu.page_clears.unwrap() * 40.0;
    assert!((clears - 3.0 * clear).abs() < 1e-12, "{cpu:?}");
    // Without the cache: one transfer of the 3 KiB for every command (the
    // text leaves memory with it), then the switch, the clearing and the
    // second: the disk busy 3 x (10 ms + 3,072 bytes at 1 MB/s).
    let one = text.replace("[files]\n    buffers = 20\n    copy_rate = \"1MB/s\"\n", "");
    let s = run(&inline_system(&one), 0);
    let read = 0.010 + 3072.0 / 1e6;
    assert_three_commands(&s, read + 0.001 + clear + 1.0, read + 0.001 + clear + 1.0);
    let disk = &s.stations[1];
    assert_eq!(disk.completions, 3);
    assert!(
        (disk.utilization * 40.0 - 3.0 * read).abs() < 1e-12,
        "{disk:?}"
    );
    let cpu = s.cpu.as_ref().unwrap();
    assert!(
        (cpu.page_clears.unwrap() * 40.0 - 3.0 * clear).abs() < 1e-12,
        "{cpu:?}"
    );
}

#[test]
fn a_text_in_memory_is_not_read_again() {
    // A background process of the same class ran its command at the start
    // and sleeps in memory, its text with it (V7's text table): the
    // users' execs read the data's six blocks only (the text ends at the
    // start of block 4), all found in the cache the background's exec
    // filled, and the disk is idle after the warm-up.
    let text = CACHED.replace(
        "[run]\n    end_time = \"40s\"",
        "[run]\n    end_time = \"40s\"\n    warmup = \"5s\"",
    ) + "    [[background]]\n    name = \"daemon\"\n    class = \"job\"\n    sleep = { det = { value = \"1000s\" } }\n";
    let s = run(&inline_system(&text), 0);
    let (mean, completions) = job_response(&s);
    assert_eq!(completions, 3);
    let exact = 0.001 + 6.0 * COPY + 1.0;
    assert!((mean - exact).abs() < 1e-9, "{mean} vs {exact}");
    let t = program_traffic(&s);
    assert_eq!((t.reads, t.hits, t.misses), (18, 18, 0), "{t:?}");
    assert_eq!(s.stations[1].completions, 0);
}

#[test]
fn under_contention_for_a_small_cache_every_exec_ends_and_the_counts_add_up() {
    // Eight users, exponential think times, three buffers for images of
    // ten blocks: reads wait for blocks in transit and for buffers. The
    // model's debug checks run through the run; no exec is left waiting
    // for good, and each block the disk moved was a miss or a read ahead.
    let text = CACHED
        .replace("terminals = 1", "terminals = 8")
        .replace("det = { value = \"10s\" }", "exp = { mean = \"2s\" }")
        .replace(
            "cpu = { det = { value = \"1s\" } }",
            "cpu = { exp = { mean = \"50ms\" } }",
        )
        .replace(
            "end_time = \"40s\"",
            "end_time = \"400s\"\n    warmup = \"0s\"",
        )
        .replace("buffers = 20", "buffers = 3");
    for replication in 0..3 {
        let s = run(&inline_system(&text), replication);
        let (_, completions) = job_response(&s);
        assert!(completions > 500, "{completions}");
        let t = program_traffic(&s);
        assert_eq!(t.reads, t.hits + t.in_transit + t.misses);
        assert!(t.in_transit > 0 && t.misses > 0, "{t:?}");
        // (Less those under way at the end: at most a read and a read
        // ahead for each user.)
        let moved = t.misses + t.read_aheads;
        let done = s.stations[1].completions;
        assert!(done <= moved && moved - done <= 16, "{done}: {t:?}");
        // Every command's exec read its ten blocks, or six beside another
        // process of the class holding the text; those under way at the
        // end read some.
        assert!(
            t.reads >= 6 * completions && t.reads <= 10 * (completions + 8),
            "{t:?}"
        );
    }
}

#[test]
fn a_bad_cache_is_refused_by_key_with_status_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, key) in [
        (
            "buffers = 20",
            "buffers = 20\n    block = \"1000B\"",
            "files.block",
        ),
        ("buffers = 20", "buffers = 200", "files.buffers"),
        (
            "copy_rate = \"1MB/s\"",
            "copy_rate = \"-1MB/s\"",
            "files.copy_rate",
        ),
        (
            "device = \"disk\"\n    [[device]]",
            "device = \"disk\"\n    clear_cpu = \"-1ms\"\n    [[device]]",
            "memory.clear_cpu",
        ),
        (
            "device = \"disk\"\n    [[device]]",
            "device = \"disk\"\n    clear_cpu = \"fast\"\n    [[device]]",
            "memory.clear_cpu",
        ),
    ] {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, CACHED.replace(from, to)).unwrap();
        let out_dir = dir.path().join("out");
        let out = crate::cli::tpsim(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert_eq!(out.status, 2, "{key}: {}", out.stderr);
        assert!(out.stderr.contains(key), "{key}: {}", out.stderr);
        assert!(!out_dir.exists(), "nothing written for {key}");
    }
}

#[test]
fn a_cache_report_is_a_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cached.toml");
    std::fs::write(&path, CACHED).unwrap();
    let out = crate::cli::tpsim(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Buffer cache"), "{}", out.stdout);
    assert!(
        out.stdout.contains("| program |   disk |    30 |   20 |"),
        "{}",
        out.stdout
    );
    let out = crate::cli::tpsim(&["run", path.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["files"]["traffic"][0]["misses"], 2);
    assert_eq!(json["files"]["block_bytes"], 512);
}

/// `CACHED` with a 4-block shared file of macros and a 2-block temporary
/// file: each command reads the macros, writes its temporary file, then
/// reads it back (8 blocks, one every 1 s / 9 of its processor time).
fn with_data_files() -> String {
    CACHED.replace(
        "    text = \"2KiB\"\n",
        "    text = \"2KiB\"\n    files = [{ read = \"macros\" }, { write = \"tmp\" }, { read = \"tmp\" }]\n",
    ) + r#"
    [[file]]
    name = "macros"
    size = "2KiB"
    [[file]]
    name = "tmp"
    size = "1KiB"
    private = true
"#
}

#[test]
fn a_script_s_programs_share_its_temporary_files_through_the_cache() {
    // Each command runs `sh` as a script of two passes (a program given
    // runs of its own, as `sh -c` is): the first writes a temporary file
    // of two blocks, the second reads it back, and finds both blocks in
    // the cache where the first left them: the script's programs share
    // its private files. Nothing of the file is read from the disk.
    let text = CACHED
        .replace(
            "commands = [{ class = \"job\", weight = 1 }]",
            "commands = [{ class = \"cc\", weight = 1 }]",
        )
        .replace("end_time = \"40s\"", "end_time = \"100s\"")
        + r#"
    [[class]]
    name = "cc"
    cpu = { det = { value = "10ms" } }
    size = "2KiB"
    runs = [{ class = "sh", runs = ["pass1", "pass2"] }]
    [[class]]
    name = "sh"
    cpu = { det = { value = "10ms" } }
    size = "2KiB"
    [[class]]
    name = "pass1"
    cpu = { det = { value = "100ms" } }
    size = "2KiB"
    files = [{ write = "tmp" }]
    [[class]]
    name = "pass2"
    cpu = { det = { value = "100ms" } }
    size = "2KiB"
    files = [{ read = "tmp" }]
    [[file]]
    name = "tmp"
    size = "1KiB"
    private = true
"#;
    let s = run(&inline_system(&text), 0);
    let cc = s.classes.iter().find(|c| c.name == "cc").unwrap();
    assert!(cc.completions >= 5, "{cc:?}");
    let t = traffic(&s, "temporary");
    // Every command wrote two blocks and read them back from the cache
    // (those under way at the end aside).
    assert!(t.reads >= 2 * cc.completions, "{t:?}");
    assert_eq!((t.hits, t.misses, t.in_transit), (t.reads, 0, 0), "{t:?}");
}

fn traffic<'a>(s: &'a Summary, kind: &str) -> &'a FileTraffic {
    let files = s.files.as_ref().unwrap();
    files.traffic.iter().find(|t| t.kind == kind).unwrap()
}

#[test]
fn data_files_are_read_and_written_through_the_cache_to_the_nanosecond() {
    // The first command: its exec as before; then, as it runs, the macros'
    // blocks 0 and 1 are misses (each a transfer, a switch back and the
    // copy; block 1's read starts block 2's read ahead, and block 2's
    // block 3's), blocks 2 and 3 hits found read ahead, and its temporary
    // file's two blocks are written without waiting and read back from
    // the cache: six copies in the kernel, no switch. The later commands
    // find everything in the cache but their new temporary files, which
    // they write without waiting: copies alone.
    let s = run(&inline_system(&with_data_files()), 0);
    let first =
        10.0 * TRANSFER + 0.001 + 10.0 * COPY + 1.0 + 2.0 * (TRANSFER + 0.001 + COPY) + 6.0 * COPY;
    let later = 0.001 + 10.0 * COPY + 1.0 + 8.0 * COPY;
    assert_three_commands(&s, first, later);
    let data = traffic(&s, "data");
    assert_eq!(
        (
            data.reads,
            data.hits,
            data.in_transit,
            data.misses,
            data.read_aheads,
            data.writes
        ),
        (12, 10, 0, 2, 2, 0),
        "{data:?}"
    );
    // V7 delays every write: the first two commands' temporary blocks go
    // out at `update`'s flush at 30 s, the third's not before the end.
    let temporary = traffic(&s, "temporary");
    assert_eq!(
        (temporary.reads, temporary.hits, temporary.writes),
        (6, 6, 4),
        "{temporary:?}"
    );
    assert_eq!(traffic(&s, "program").reads, 30);
    // The disk: the first exec's ten blocks, the macros' four, four
    // temporary blocks written.
    assert_eq!(s.stations[1].completions, 18);
    let cpu = s.cpu.as_ref().unwrap();
    let copies = cpu.buffer_copies.unwrap() * 40.0;
    assert!((copies - (30.0 + 24.0) * COPY).abs() < 1e-12, "{cpu:?}");
}

#[test]
fn a_cache_too_small_for_the_temporary_files_sends_their_reads_to_the_disk() {
    // Two buffers: the temporary file's blocks are pushed out by the
    // next blocks taken before they are read back, so every read of them
    // misses, and the counts still add up with the disk's work.
    let text = with_data_files()
        .replace("buffers = 20", "buffers = 2")
        .replace("terminals = 1", "terminals = 4")
        .replace("det = { value = \"10s\" }", "exp = { mean = \"3s\" }")
        .replace("end_time = \"40s\"", "end_time = \"600s\"");
    let s = run(&inline_system(&text), 0);
    let (_, completions) = job_response(&s);
    assert!(completions > 100, "{completions}");
    let temporary = traffic(&s, "temporary");
    assert!(temporary.misses > 0, "{temporary:?}");
    let moved: u64 = s
        .files
        .as_ref()
        .unwrap()
        .traffic
        .iter()
        .map(|t| t.misses + t.read_aheads + t.writes)
        .sum();
    let done = s.stations[1].completions;
    assert!(done <= moved && moved - done <= 16, "{done} of {moved}");
}

#[test]
fn a_block_read_ahead_too_slowly_is_waited_for_in_transit_as_the_spacing_says() {
    // The same with a 150 ms seek: a block read ahead is still in transit
    // one spacing (1 s / 9) of processor time later. Blocks 2 and 3 of the
    // macros are each waited for: T less the switch, the copy and the
    // spacing the process ran meanwhile. The temporary file's writes
    // finish before its reads come.
    let text = with_data_files().replace("seek = \"10ms\"", "seek = \"150ms\"");
    let s = run(&inline_system(&text), 0);
    let t = 0.150 + 512.0 / 1e6;
    let spacing = 1.0 / 9.0;
    let first =
        10.0 * t + 0.001 + 10.0 * COPY + 1.0 + 4.0 * t + 2.0 * 0.001 + 6.0 * COPY - 2.0 * spacing;
    let later = 0.001 + 10.0 * COPY + 1.0 + 8.0 * COPY;
    assert_three_commands(&s, first, later);
    let data = traffic(&s, "data");
    assert_eq!(
        (data.hits, data.in_transit, data.misses, data.read_aheads),
        (8, 2, 2, 2),
        "{data:?}"
    );
}

#[test]
fn delayed_writes_reach_the_disk_at_update_s_flush_every_30_s() {
    // The first command (10 s to 11.2 s) writes its temporary file's two
    // blocks, delayed; the second (21.2 s) two more. Up to 29 s nothing
    // of them has reached the disk; the flush at 30 s sends all four.
    let mut done = Vec::new();
    for end in ["29s", "31s"] {
        let text =
            with_data_files().replace("end_time = \"40s\"", &format!("end_time = \"{end}\""));
        let s = run(&inline_system(&text), 0);
        done.push((traffic(&s, "temporary").writes, s.stations[1].completions));
    }
    assert_eq!(done, [(0, 14), (4, 18)]);
}

#[test]
fn under_4bsd_s_rules_blocks_read_or_written_whole_are_taken_first() {
    // 4BSD ages a block read to its end and a whole block written at once
    // (`B_AGE`): each goes to the head of the free list and is the next
    // taken. So nothing of an exec's image survives to the next exec, the
    // macros' first two blocks are missed by every command, and each
    // temporary block is pushed out by the next before it is read back:
    // every command pays as the first did under V7, and more.
    let v7 = run(&inline_system(&with_data_files()), 0);
    let text = with_data_files().replace(
        "copy_rate = \"1MB/s\"",
        "copy_rate = \"1MB/s\"\n    rules = \"4bsd\"",
    );
    let bsd = run(&inline_system(&text), 0);
    let counts = |t: &FileTraffic| (t.hits, t.in_transit, t.misses, t.read_aheads, t.writes);
    assert_eq!(counts(traffic(&bsd, "program")), (0, 24, 6, 24, 0));
    assert_eq!(counts(traffic(&bsd, "data")), (6, 0, 6, 6, 0));
    assert_eq!(counts(traffic(&bsd, "temporary")), (0, 0, 6, 0, 6));
    let (v7_mean, _) = job_response(&v7);
    let (bsd_mean, completions) = job_response(&bsd);
    assert_eq!(completions, 3);
    assert!(bsd_mean > v7_mean + 0.05, "{bsd_mean} against {v7_mean}");
}

#[test]
fn under_paging_data_files_go_through_the_cache_beside_the_faults() {
    // thrashing-clock at 4 users (below its knee) with 8 KiB of kernel
    // holding a 16-buffer cache, and
    // each command reading a shared 4 KiB file and writing and reading
    // back a 2 KiB temporary one: the faults and the file blocks share the
    // disk, every debug check holds, and the cache's
    // counts add up.
    let path = crate::scenario_path("thrashing-clock");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("kernel = \"0KiB\"", "kernel = \"8KiB\"")
        .replace("terminals = 16", "terminals = 4")
        .replace(
            "size = \"100KiB\"\n",
            "size = \"100KiB\"\nfiles = [{ read = \"shared\" }, { write = \"tmp\" }, { read = \"tmp\" }]\n",
        )
        + "\n[files]\nbuffers = 16\ncopy_rate = \"2MB/s\"\n[[file]]\nname = \"shared\"\nsize = \"4KiB\"\n[[file]]\nname = \"tmp\"\nsize = \"2KiB\"\nprivate = true\n";
    let mut sys = inline_system(&text);
    sys.settings.end_time = tpsim::core::SimTime::from_secs(600);
    sys.settings.warmup = tpsim::core::SimTime::ZERO;
    let s = run(&sys, 0);
    let files = s.files.as_ref().unwrap();
    assert!(
        files.traffic.iter().all(|t| t.kind != "program"),
        "exec reads nothing through the cache under paging: {files:?}"
    );
    let data = traffic(&s, "data");
    let temporary = traffic(&s, "temporary");
    assert!(data.reads > 0 && temporary.writes > 0, "{files:?}");
    for t in [data, temporary] {
        assert_eq!(t.reads, t.hits + t.in_transit + t.misses);
    }
    let completions: u64 = s.classes.iter().map(|c| c.completions).sum();
    assert!(completions > 10, "{completions}");
    assert!(s.paging.as_ref().unwrap().faults > 0);
}

#[test]
fn a_sticky_text_comes_back_from_the_swap_area_in_one_transfer() {
    // Two buffers: nothing of an image survives in the cache between
    // commands. Without the sticky bit every exec reads the ten blocks
    // from the disk. With it, the first command's exit writes the 2 KiB
    // text to the swap area (the disk is otherwise idle then), and each
    // later exec swaps the text in (one 10 ms access and 2,048 bytes) and
    // reads only the data's six blocks.
    let small = CACHED.replace("buffers = 20", "buffers = 2");
    let plain = run(&inline_system(&small), 0);
    let each = 10.0 * TRANSFER + 0.001 + 10.0 * COPY + 1.0;
    let (mean, completions) = job_response(&plain);
    assert_eq!(completions, 3);
    assert!((mean - each).abs() < 1e-9, "{mean} vs {each}");
    let sticky = small.replace("text = \"2KiB\"\n", "text = \"2KiB\"\n    sticky = true\n");
    let s = run(&inline_system(&sticky), 0);
    let later = 0.010 + 2048.0 / 1e6 + 6.0 * TRANSFER + 0.001 + 6.0 * COPY + 1.0;
    assert_three_commands(&s, each, later);
    // The disk: 10 + 6 + 6 blocks, the text written once and read twice.
    assert_eq!(s.stations[1].completions, 22 + 3);
    assert_eq!(traffic(&s, "program").reads, 22);
}

#[test]
fn a_contiguous_layout_spares_an_exec_the_seeks_between_its_blocks() {
    // An arm over 400 cylinders (4 ms a track, 25 ms on average, 45 ms
    // across), no rotation, two buffers so that every exec reads its ten
    // blocks from the disk. Scattered, each block is on a cylinder of its
    // own; contiguous (a cylinder holds 200 KiB), all ten are on the
    // file's home cylinder and only the first block seeks. Paired on the
    // same seeds, each command is faster by about nine seeks, well over
    // 0.1 s.
    let text = CACHED
        .replace("buffers = 20", "buffers = 2")
        .replace(
            "seek = \"10ms\"",
            "arm = { cylinders = 400, track = \"4ms\", average = \"25ms\", full = \"45ms\" }",
        )
        .replace("end_time = \"40s\"", "end_time = \"400s\"")
        .replace("det = { value = \"10s\" }", "exp = { mean = \"5s\" }");
    let contiguous = text
        .replace(
            "arm = { cylinders = 400,",
            "arm = { cylinder = \"200KiB\", cylinders = 400,",
        )
        .replace(
            "copy_rate = \"1MB/s\"",
            "copy_rate = \"1MB/s\"\n    layout = \"contiguous\"",
        );
    let (scattered, contiguous) = (inline_system(&text), inline_system(&contiguous));
    let differences: Vec<f64> = (0..6)
        .map(|r| {
            let a = job_response(&simulate(&scattered, seed(1), r).summary).0;
            let b = job_response(&simulate(&contiguous, seed(1), r).summary).0;
            a - b - 0.1
        })
        .collect();
    crate::assert_above(
        "scattered less contiguous exec, less 0.1 s",
        &differences,
        0.0,
    );
}
