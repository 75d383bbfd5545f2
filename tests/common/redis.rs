//! A real `redis-server` for the state stores' tests (the library's unit
//! tests include this file too).

use std::time::Duration;

/// A `redis-server` of the tests' own, on a free loopback port, with
/// nothing saved; killed when dropped.
pub struct RedisServer {
    child: std::process::Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// A server started with `config` too (`--name value` pairs).
    pub fn start_with(config: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        Self::listening(dir, port, &["--port", &port.to_string()], config, "redis")
    }

    /// A server speaking only TLS (`rediss://`), its certificate for
    /// 127.0.0.1 signed by a CA of its own, made with `openssl`: `ca.crt`
    /// in [`Self::ca`].
    pub fn start_tls() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let openssl = |args: &[&str]| {
            let made = std::process::Command::new("openssl")
                .args(args)
                .current_dir(dir.path())
                .output()
                .expect("openssl (apt-get install openssl; .ci/run installs it)");
            assert!(made.status.success(), "openssl {args:?}: {made:?}");
        };
        let subject = |cn: &str| format!("/CN={cn}");
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            &subject("ptc test CA"),
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            &subject("127.0.0.1"),
        ]);
        std::fs::write(dir.path().join("san.cnf"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "san.cnf",
        ]);
        let port = free_port();
        let tls = [
            "--port",
            "0",
            "--tls-port",
            &port.to_string(),
            "--tls-cert-file",
            "server.crt",
            "--tls-key-file",
            "server.key",
            "--tls-ca-cert-file",
            "ca.crt",
            "--tls-auth-clients",
            "no",
        ];
        Self::listening(dir, port, &tls, &[], "rediss")
    }

    /// The CA a TLS server's certificate is signed by.
    pub fn ca(&self) -> std::path::PathBuf {
        self._dir.path().join("ca.crt")
    }

    /// `redis-server` in `dir` listening on `port` as `listen` says.
    fn listening(
        dir: tempfile::TempDir,
        port: u16,
        listen: &[&str],
        config: &[&str],
        scheme: &str,
    ) -> Self {
        let child = std::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1"])
            .args(listen)
            .args(["--save", "", "--appendonly", "no"])
            .args(config)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("Debian's redis-server (apt-get install redis-server; .ci/run installs it)");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "redis-server never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Self {
            child,
            url: format!("{scheme}://127.0.0.1:{port}/0"),
            _dir: dir,
        }
    }
}

/// A loopback port free when asked.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

impl RedisServer {
    /// The server's process id (to stop it, as a hung server).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
