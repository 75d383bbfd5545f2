//! Sessions in Redis (`redis://HOST:PORT/DB`): shared by a fleet. Each call
//! is one Lua script, which Redis runs whole before any other command, so
//! the quota check and the write are one step for every process at once.
//! A session is one hash (its values, and its usage in two fields no key
//! can spell, since keys hold no control characters), so its values and
//! its usage expire together, by Redis's own clock; last use is Redis's
//! clock too, so a fleet's clocks need not agree. The store's secret is a
//! key of its own, so every process on the database mints and checks the
//! same handles. The server must keep what it is given: a
//! `maxmemory-policy` that evicts would drop committed values, so such a
//! server is refused at open. A standalone server (or a primary): the
//! scripts name keys they compute, which a cluster would refuse.
//!
//! Keys: `ptc:secret`; `ptc:sessions` (each session by its last use);
//! `ptc:session:HANDLE`.

use std::sync::LazyLock;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script, Value};

use super::handle::{Minter, SECRET_BYTES, random};
use super::{Quotas, StateError, Store, StoreFuture, Usage, ready, redacted};

/// How long one call waits for Redis, and for a connection to it.
const PATIENCE: Duration = Duration::from_secs(5);

/// The longest idle expiry Redis is given (ten years).
const LONGEST_EXPIRY_MS: i64 = 10 * 365 * 24 * 3600 * 1000;

const SECRET: &str = "ptc:secret";
const SESSIONS: &str = "ptc:sessions";

/// Redis's time in milliseconds, as every script reads it.
const NOW: &str = "
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
";

/// Marks the session used, or answers that it is gone: the prelude of
/// every script but `open`'s. KEYS: sessions, the session; ARGV: handle,
/// expiry.
static TOUCH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{NOW}
if redis.call('EXISTS', KEYS[2]) == 0 then return {{1}} end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
"
    )
});

/// ARGV: handle, expiry, max sessions.
static OPEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
while redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) do
  local oldest = redis.call('ZPOPMIN', KEYS[1])
  redis.call('UNLINK', 'ptc:session:' .. oldest[1])
end
local session = 'ptc:session:' .. ARGV[1]
redis.call('HSET', session, '\\0bytes', 0, '\\0keys', 0)
redis.call('PEXPIRE', session, ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
return {{0}}"
    ))
});

static CHECK: LazyLock<Script> = LazyLock::new(|| Script::new(&format!("{} return {{0}}", *TOUCH)));

/// ARGV[3]: the key.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{}
local value = redis.call('HGET', KEYS[2], ARGV[3])
if value then return {{0, value}} end
return {{0}}",
        *TOUCH
    ))
});

/// ARGV[3..]: the key, the value, the quotas of a value, a session's
/// bytes and its keys. Refused: `{2, bytes, keys, old}` (old -1: unset).
static SET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{}
local old = -1
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then
  old = redis.call('HSTRLEN', KEYS[2], ARGV[3])
end
local bytes = tonumber(redis.call('HGET', KEYS[2], '\\0bytes') or 0)
local keys = tonumber(redis.call('HGET', KEYS[2], '\\0keys') or 0)
local size = string.len(ARGV[4])
local new_bytes, new_keys = bytes + string.len(ARGV[3]) + size, keys + 1
if old >= 0 then new_bytes, new_keys = bytes - old + size, keys end
if size > tonumber(ARGV[5]) or new_bytes > tonumber(ARGV[6]) or new_keys > tonumber(ARGV[7]) then
  return {{2, bytes, keys, old}}
end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4], '\\0bytes', new_bytes, '\\0keys', new_keys)
return {{0}}",
        *TOUCH
    ))
});

/// ARGV[3]: the key. `{0, 1}` when it was set.
static DELETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{}
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 then return {{0, 0}} end
local freed = string.len(ARGV[3]) + redis.call('HSTRLEN', KEYS[2], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('HINCRBY', KEYS[2], '\\0bytes', -freed)
redis.call('HINCRBY', KEYS[2], '\\0keys', -1)
return {{0, 1}}",
        *TOUCH
    ))
});

/// The session's keys, its usage fields among them (taken out in Rust).
static KEYS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{} return {{0, redis.call('HKEYS', KEYS[2])}}",
        *TOUCH
    ))
});

/// Sessions in Redis.
pub(crate) struct RedisStore {
    url: String,
    minter: Minter,
    quotas: Quotas,
    connection: ConnectionManager,
}

impl RedisStore {
    /// Connects to `url` and takes (or sets) the store's secret.
    ///
    /// # Errors
    /// The URL is not Redis's, or Redis cannot be reached in 5 s.
    pub(crate) async fn open(url: &str, quotas: Quotas) -> Result<Self, StateError> {
        let shown = redacted(url);
        let failed = |e: redis::RedisError| StateError::Unavailable(format!("`{shown}`: {e}"));
        let client = redis::Client::open(url).map_err(failed)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(PATIENCE))
            .set_response_timeout(Some(PATIENCE))
            .set_number_of_retries(2);
        let mut connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(failed)?;
        let fresh: [u8; SECRET_BYTES] = random()
            .map_err(|e| StateError::Unavailable(format!("no randomness for a secret: {e}")))?;
        let _: bool = connection
            .set_nx(SECRET, &fresh[..])
            .await
            .map_err(failed)?;
        let kept: Vec<u8> = connection.get(SECRET).await.map_err(failed)?;
        refuse_eviction(&mut connection, &shown).await?;
        let secret: [u8; SECRET_BYTES] = kept.try_into().map_err(|_| {
            StateError::Unavailable(format!("`{shown}`: `{SECRET}` is not a ptc store's secret"))
        })?;
        Ok(Self {
            url: shown.clone(),
            minter: Minter::new(secret),
            quotas,
            connection,
        })
    }

    /// Runs `script` on session `handle` (checked first) with `args` after
    /// the handle, the time and the expiry; gives the script's answer past
    /// its status.
    fn on(
        &self,
        script: &'static Script,
        handle: &str,
        args: Vec<Vec<u8>>,
    ) -> StoreFuture<Vec<Value>> {
        if !self.minter.minted(handle) {
            let error = StateError::Unknown {
                session: handle.to_owned(),
                store: self.describe(),
            };
            return ready(Err(error));
        }
        let mut connection = self.connection.clone();
        let handle = handle.to_owned();
        let gone = StateError::Expired {
            session: handle.clone(),
            keeps: self.quotas.keeps(&self.describe()),
        };
        let expiry = expiry_ms(self.quotas);
        Box::pin(async move {
            let mut invocation = script.prepare_invoke();
            invocation
                .key(SESSIONS)
                .key(format!("ptc:session:{handle}"))
                .arg(&handle)
                .arg(expiry);
            for arg in args {
                invocation.arg(arg);
            }
            let answer: Vec<Value> = invocation
                .invoke_async(&mut connection)
                .await
                .map_err(unavailable)?;
            match answer.split_first() {
                Some((Value::Int(1), _)) => Err(gone),
                Some((Value::Int(0 | 2), _)) => Ok(answer),
                _ => Err(StateError::Unavailable(format!(
                    "a script answered {answer:?}"
                ))),
            }
        })
    }
}

fn expiry_ms(quotas: Quotas) -> i64 {
    let ms = i64::try_from(quotas.idle_expiry.as_millis()).unwrap_or(i64::MAX);
    ms.clamp(1, LONGEST_EXPIRY_MS)
}

/// Refuses a server whose `maxmemory-policy` may evict keys (which would
/// drop committed values and the secret). A server that does not let ptc
/// read its configuration is taken at its word.
async fn refuse_eviction(
    connection: &mut ConnectionManager,
    shown: &str,
) -> Result<(), StateError> {
    let policy: Result<Vec<String>, _> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("maxmemory-policy")
        .query_async(connection)
        .await;
    match policy.as_deref() {
        Ok([_, policy]) if policy != "noeviction" => Err(StateError::Unavailable(format!(
            "`{shown}`: its maxmemory-policy is `{policy}`, which may drop committed values; set it to `noeviction` (sessions expire on their own)"
        ))),
        _ => Ok(()),
    }
}

fn unavailable(error: redis::RedisError) -> StateError {
    StateError::Unavailable(error.to_string())
}

/// A number a script answered with.
fn int(value: Option<&Value>) -> i64 {
    match value {
        Some(Value::Int(n)) => *n,
        _ => 0,
    }
}

/// A string a script answered with.
fn text(value: &Value) -> Result<String, StateError> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone())
            .map_err(|_| StateError::Unavailable("a stored value is not UTF-8".into())),
        other => Err(StateError::Unavailable(format!(
            "expected text, got {other:?}"
        ))),
    }
}

impl Store for RedisStore {
    fn open(&self) -> StoreFuture<String> {
        let mut connection = self.connection.clone();
        let handle = self.minter.mint();
        let (expiry, max) = (expiry_ms(self.quotas), self.quotas.max_sessions.max(1));
        Box::pin(async move {
            let handle = handle.map_err(|e| StateError::Unavailable(e.to_string()))?;
            let mut invocation = OPEN.prepare_invoke();
            invocation.key(SESSIONS).arg(&handle).arg(expiry).arg(max);
            let _: Vec<Value> = invocation
                .invoke_async(&mut connection)
                .await
                .map_err(unavailable)?;
            Ok(handle)
        })
    }

    fn check(&self, session: &str) -> StoreFuture<()> {
        let answer = self.on(&CHECK, session, Vec::new());
        Box::pin(async move { answer.await.map(drop) })
    }

    fn read(&self, session: &str, key: &str) -> StoreFuture<Option<String>> {
        let answer = self.on(&GET, session, vec![key.into()]);
        Box::pin(async move { answer.await?.get(1).map(text).transpose() })
    }

    fn write(&self, session: &str, key: &str, value: String) -> StoreFuture<()> {
        let q = self.quotas;
        let size = value.len();
        if size > q.max_value_bytes {
            // Refused here: a value past its quota never crosses the network.
            let refused = q.after_set(Usage::default(), key, None, size).map(drop);
            return ready(refused);
        }
        let limits = [q.max_value_bytes, q.max_session_bytes, q.max_keys];
        let mut args = vec![key.into(), value.into_bytes()];
        args.extend(limits.map(|n| n.to_string().into_bytes()));
        let answer = self.on(&SET, session, args);
        let key = key.to_owned();
        Box::pin(async move {
            let answer = answer.await?;
            if int(answer.first()) == 0 {
                return Ok(());
            }
            // Refused: the same arithmetic, in Rust, says by which quota.
            let count = |at: usize| usize::try_from(int(answer.get(at))).unwrap_or(0);
            let usage = Usage {
                bytes: count(1),
                keys: count(2),
            };
            let old = usize::try_from(int(answer.get(3))).ok();
            match q.after_set(usage, &key, old, size) {
                Err(refused) => Err(refused),
                Ok(_) => Err(StateError::Quota(format!("`{key}` is over a quota"))),
            }
        })
    }

    fn remove(&self, session: &str, key: &str) -> StoreFuture<bool> {
        let answer = self.on(&DELETE, session, vec![key.into()]);
        Box::pin(async move { Ok(int(answer.await?.get(1)) == 1) })
    }

    fn keys(&self, session: &str) -> StoreFuture<Vec<String>> {
        let answer = self.on(&KEYS, session, Vec::new());
        Box::pin(async move {
            let answer = answer.await?;
            let mut keys = match answer.get(1) {
                Some(Value::Array(keys)) => keys.iter().map(text).collect::<Result<Vec<_>, _>>()?,
                _ => Vec::new(),
            };
            keys.retain(|key| !key.starts_with('\0'));
            keys.sort_unstable();
            Ok(keys)
        })
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn quotas(&self) -> Quotas {
        self.quotas
    }
}
