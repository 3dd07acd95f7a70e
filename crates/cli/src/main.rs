//! The `tpsim` binary: see the `tpsim_cli` library for the program.

fn main() {
    let status = tpsim_cli::run(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(status);
}
