//! Sessions in Redis (`redis://HOST:PORT/DB`): shared by a fleet. Each call
//! is one Lua script, which Redis runs whole before any other command, so
//! the quota check and the write are one step for every process at once.
//! Expiry is Redis's own (each session's keys carry the idle time); the
//! store's secret is a key of its own, so every process on the database
//! mints and checks the same handles. A standalone server (or a primary):
//! the scripts name keys they compute, which a cluster would refuse.
//!
//! Keys: `ptc:secret`; `ptc:sessions` (each session by its last use);
//! `ptc:usage:HANDLE` (its bytes and keys) and `ptc:values:HANDLE`.

use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script, Value};

use super::handle::{Minter, SECRET_BYTES, random};
use super::{Quotas, StateError, Store, StoreFuture, Usage, check_key, redacted};

/// How long one call waits for Redis, and for a connection to it.
const PATIENCE: Duration = Duration::from_secs(5);

const SECRET: &str = "ptc:secret";
const SESSIONS: &str = "ptc:sessions";

/// Marks the session used, or says it is gone: the prelude of every script
/// but `open`'s. KEYS: sessions, usage, values; ARGV: handle, now, expiry.
const TOUCH: &str = "
local function touch()
  if redis.call('EXISTS', KEYS[2]) == 0 then return false end
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  return true
end
if not touch() then return {1} end
";

/// ARGV: handle, now, expiry, max sessions.
static OPEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
while redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) do
  local oldest = redis.call('ZPOPMIN', KEYS[1])
  redis.call('DEL', 'ptc:usage:' .. oldest[1], 'ptc:values:' .. oldest[1])
end
redis.call('HSET', 'ptc:usage:' .. ARGV[1], 'bytes', 0, 'keys', 0)
redis.call('PEXPIRE', 'ptc:usage:' .. ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return {0}
",
    )
});

static CHECK: LazyLock<Script> = LazyLock::new(|| Script::new(&format!("{TOUCH} return {{0}}")));

/// ARGV[4]: the key.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TOUCH}
local value = redis.call('HGET', KEYS[3], ARGV[4])
if value then return {{0, value}} end
return {{0}}"
    ))
});

/// ARGV[4..]: the key, the value, the quotas of a value, a session's
/// bytes and its keys. Refused: `{2, bytes, keys, old}` (old -1: unset).
static SET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TOUCH}
local old = -1
if redis.call('HEXISTS', KEYS[3], ARGV[4]) == 1 then
  old = redis.call('HSTRLEN', KEYS[3], ARGV[4])
end
local bytes = tonumber(redis.call('HGET', KEYS[2], 'bytes') or 0)
local keys = tonumber(redis.call('HGET', KEYS[2], 'keys') or 0)
local size = string.len(ARGV[5])
local new_bytes, new_keys = bytes + string.len(ARGV[4]) + size, keys + 1
if old >= 0 then new_bytes, new_keys = bytes - old + size, keys end
if size > tonumber(ARGV[6]) or new_bytes > tonumber(ARGV[7]) or new_keys > tonumber(ARGV[8]) then
  return {{2, bytes, keys, old}}
end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[2], 'bytes', new_bytes, 'keys', new_keys)
return {{0}}"
    ))
});

/// ARGV[4]: the key. `{0, 1}` when it was set.
static DELETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TOUCH}
if redis.call('HEXISTS', KEYS[3], ARGV[4]) == 0 then return {{0, 0}} end
local freed = string.len(ARGV[4]) + redis.call('HSTRLEN', KEYS[3], ARGV[4])
redis.call('HDEL', KEYS[3], ARGV[4])
redis.call('HINCRBY', KEYS[2], 'bytes', -freed)
redis.call('HINCRBY', KEYS[2], 'keys', -1)
return {{0, 1}}"
    ))
});

static KEYS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TOUCH} return {{0, redis.call('HKEYS', KEYS[3])}}"
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
            return Box::pin(std::future::ready(Err(error)));
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
                .key(format!("ptc:usage:{handle}"))
                .key(format!("ptc:values:{handle}"))
                .arg(&handle)
                .arg(now_ms())
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

fn now_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

fn expiry_ms(quotas: Quotas) -> i64 {
    i64::try_from(quotas.idle_expiry.as_millis())
        .unwrap_or(i64::MAX)
        .max(1)
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
            invocation
                .key(SESSIONS)
                .arg(&handle)
                .arg(now_ms())
                .arg(expiry)
                .arg(max);
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

    fn get(&self, session: &str, key: &str) -> StoreFuture<Option<String>> {
        if let Err(e) = check_key(key) {
            return Box::pin(std::future::ready(Err(e)));
        }
        let answer = self.on(&GET, session, vec![key.into()]);
        Box::pin(async move { answer.await?.get(1).map(text).transpose() })
    }

    fn set(&self, session: &str, key: &str, value: String) -> StoreFuture<()> {
        if let Err(e) = check_key(key) {
            return Box::pin(std::future::ready(Err(e)));
        }
        let q = self.quotas;
        let limits = [q.max_value_bytes, q.max_session_bytes, q.max_keys];
        let size = value.len();
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

    fn delete(&self, session: &str, key: &str) -> StoreFuture<bool> {
        if let Err(e) = check_key(key) {
            return Box::pin(std::future::ready(Err(e)));
        }
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
            keys.sort_unstable();
            Ok(keys)
        })
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}
