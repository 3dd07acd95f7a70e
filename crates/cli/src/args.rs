//! Readers for the command line's whole numbers. Each refuses a value by
//! saying what is allowed, where clap alone would say that a digit is
//! invalid, or advise passing a negative number after `--` (wrong here:
//! no option takes one).

/// The most threads a batch, sweep or comparison runs on: past the
/// machine's cores more threads only share them, each costs a stack, and
/// every one of them must be given a core before a signal is heard (256
/// threads on two cores hear it within about half a second).
pub(crate) const MAX_JOBS: u64 = 256;

/// The most replications of one point: every replication's measures are
/// kept in memory until the batch ends.
pub(crate) const MAX_REPLICATIONS: u64 = 1_000_000;

/// A whole number from `least` to `most`.
fn whole(text: &str, least: u64, most: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (least..=most).contains(&n) => Ok(n),
        _ => Err(format!("must be a whole number from {least} to {most}")),
    }
}

/// A master seed: any 64-bit unsigned number.
pub(crate) fn seed(text: &str) -> Result<u64, String> {
    whole(text, 0, u64::MAX)
}

/// A number of replications.
pub(crate) fn replications(text: &str) -> Result<u64, String> {
    whole(text, 1, MAX_REPLICATIONS)
}

/// A number of threads.
pub(crate) fn jobs(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_JOBS).map(|n| n as usize)
}

/// A population of terminals.
pub(crate) fn population(text: &str) -> Result<u32, String> {
    whole(text, 1, u64::from(u32::MAX)).map(|n| n as u32)
}

/// The fewest observations of a cluster of load levels.
pub(crate) fn cluster(text: &str) -> Result<usize, String> {
    whole(text, 1, u64::from(u32::MAX)).map(|n| n as usize)
}

/// The half-width of a window of load levels.
pub(crate) fn window(text: &str) -> Result<u32, String> {
    whole(text, 0, u64::from(u32::MAX)).map(|n| n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_64_bit_seed_is_taken_and_nothing_else() {
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(seed("0"), Ok(0));
        for bad in ["-1", "18446744073709551616", "1.5", "x", ""] {
            assert_eq!(
                seed(bad),
                Err("must be a whole number from 0 to 18446744073709551615".into()),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn counts_say_their_bounds() {
        assert_eq!(replications("1"), Ok(1));
        assert_eq!(replications("1000000"), Ok(MAX_REPLICATIONS));
        assert_eq!(
            replications("99999999999999"),
            Err("must be a whole number from 1 to 1000000".into())
        );
        assert_eq!(
            replications("0"),
            Err("must be a whole number from 1 to 1000000".into())
        );
        assert_eq!(jobs("256"), Ok(256));
        assert_eq!(
            jobs("100000"),
            Err("must be a whole number from 1 to 256".into())
        );
        assert_eq!(window("0"), Ok(0));
        assert!(cluster("0").is_err());
        assert!(population("-3").is_err());
    }
}
