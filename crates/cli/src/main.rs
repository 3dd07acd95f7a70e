//! The `tpsim` binary: see the `tpsim_cli` library for the program.

fn main() {
    if let Err(e) = tpsim_cli::install_signal_handlers() {
        eprintln!("tpsim: {e:#}");
    }
    let status = tpsim_cli::run(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(status);
}
