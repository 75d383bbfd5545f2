//! Session handles: 128 random bits and a MAC of them under the store's
//! secret, as hex. Only the store that holds the secret mints a handle that
//! checks, so "not minted here" and "minted here, and gone" are told apart
//! without remembering every handle ever minted.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Every handle starts so, for a person reading one in a log.
const PREFIX: &str = "ptc_";
/// The random part, in bytes.
const ID_BYTES: usize = 16;
/// The MAC's part kept in the handle, in bytes.
const MAC_BYTES: usize = 8;
/// A store's secret, in bytes.
pub(crate) const SECRET_BYTES: usize = 32;

/// Mints and checks the handles of one store.
#[derive(Clone)]
pub(crate) struct Minter {
    secret: [u8; SECRET_BYTES],
}

impl Minter {
    pub(crate) fn new(secret: [u8; SECRET_BYTES]) -> Self {
        Self { secret }
    }

    /// A minter with a fresh secret (a store that lives as long as its
    /// process).
    pub(crate) fn fresh() -> Result<Self, getrandom::Error> {
        Ok(Self::new(random()?))
    }

    /// A new handle.
    pub(crate) fn mint(&self) -> Result<String, getrandom::Error> {
        let id: [u8; ID_BYTES] = random()?;
        Ok(format!("{PREFIX}{}{}", hex(&id), hex(&self.mac(&id))))
    }

    /// Whether `handle` is one this minter minted.
    pub(crate) fn minted(&self, handle: &str) -> bool {
        // Exactly as minted, checked before anything is decoded: lowercase
        // hex of the id and the MAC, so one session has one spelling.
        let Some(digits) = handle.strip_prefix(PREFIX) else {
            return false;
        };
        let lowercase_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if digits.len() != 2 * (ID_BYTES + MAC_BYTES) || !digits.bytes().all(lowercase_hex) {
            return false;
        }
        let Some(bytes) = unhex(digits) else {
            return false;
        };
        let (id, mac) = bytes.split_at(ID_BYTES);
        subtle::ConstantTimeEq::ct_eq(&self.mac(id)[..], mac).into()
    }

    fn mac(&self, id: &[u8]) -> [u8; MAC_BYTES] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret)
            .expect("HMAC takes a key of any length");
        mac.update(id);
        let full = mac.finalize().into_bytes();
        let mut kept = [0; MAC_BYTES];
        kept.copy_from_slice(&full[..MAC_BYTES]);
        kept
    }
}

/// `N` random bytes from the operating system.
pub(crate) fn random<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut bytes = [0; N];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(digits: &str) -> Option<Vec<u8>> {
    if !digits.len().is_multiple_of(2) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&digits[at..at + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minter_checks_its_own_handles_and_no_others() {
        let minter = Minter::fresh().unwrap();
        let handle = minter.mint().unwrap();
        assert_eq!(handle.len(), PREFIX.len() + 2 * (ID_BYTES + MAC_BYTES));
        assert!(minter.minted(&handle));
        assert_ne!(handle, minter.mint().unwrap(), "random");
        let other = Minter::fresh().unwrap();
        assert!(!other.minted(&handle), "another store's secret");
        // One digit changed, in the id or in the MAC.
        for at in [PREFIX.len(), handle.len() - 1] {
            let mut forged = handle.clone().into_bytes();
            forged[at] = if forged[at] == b'0' { b'1' } else { b'0' };
            assert!(!minter.minted(&String::from_utf8(forged).unwrap()));
        }
        let upper = format!("{PREFIX}{}", handle[PREFIX.len()..].to_uppercase());
        let doubled = format!("{handle}{}", &handle[PREFIX.len()..]);
        for wrong in [
            "",
            "ptc_",
            "ptc_zz",
            &handle[PREFIX.len()..],
            &handle[..handle.len() - 2],
            &upper,
            &doubled,
        ] {
            assert!(!minter.minted(wrong), "{wrong}");
        }
    }
}
