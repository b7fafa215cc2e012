//! `whereabouts`: the native command line over the engine.

use std::process::ExitCode;

const USAGE: &str = "\
whereabouts — how much of your whereabouts leaks out of federated learning

USAGE:
    whereabouts <COMMAND> [OPTIONS]

COMMANDS:
    version     print the engine version
    help        print this help
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("help" | "-h" | "--help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("version" | "-V" | "--version") => {
            println!("whereabouts {}", whereabouts_engine::VERSION);
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("whereabouts: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
