//! `--state URL`: where sessions' values are kept between runs (contracts
//! §9), for `ptc run`, `ptc serve` and `ptc mcp`. A store that cannot be
//! opened is a configuration error (exit 2), said before anything runs.

use clap::Args;
use ptc::{Limits, StateStore};

use crate::Usage;

#[derive(Args)]
pub(crate) struct StateArgs {
    /// Where sessions' values are kept between runs: `memory` (in this
    /// process, gone when it exits) [default], `sqlite:PATH` (a file on
    /// this machine, durable), or `redis://HOST:PORT/DB` (a server a fleet
    /// shares).
    #[arg(long = "state", value_name = "URL")]
    url: Option<String>,
}

impl StateArgs {
    /// The store `--state` names, opened with `limits`' quotas; none
    /// without the flag.
    pub(crate) async fn store(&self, limits: &Limits) -> Result<Option<StateStore>, Usage> {
        let Some(url) = &self.url else {
            return Ok(None);
        };
        match StateStore::open(url, limits).await {
            Ok(store) => Ok(Some(store)),
            Err(e) => Err(Usage::new(format!("--state: {e}"))),
        }
    }

    /// Whether a store other than the process's own memory was named.
    pub(crate) fn outlives_the_process(&self) -> bool {
        self.url.as_deref().is_some_and(|url| url != "memory")
    }
}
