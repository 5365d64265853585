//! The process-wide lists of plugins: transports ([`crate::transport::register_transport`]),
//! congestion controls ([`crate::cc::register_cc`]) and routing schemes
//! ([`crate::routing::register_router`]) written outside Braid's crates and added at run time.
//!
//! Each list holds one leaked, immutable entry per registered name (a handful per process, never
//! freed), numbered in registration order: the number is what the kind enums carry
//! (`TransportKind::Plugin(n)`, …), so a kind stays `Copy` and names a plugin in O(1).

use std::sync::RwLock;

/// A registered plugin's entry: it knows its own name.
pub(crate) trait Named {
    /// The kebab-case name scenarios use.
    fn name(&self) -> &'static str;
}

/// One list of registered plugins of one sort (`E` is its entry type).
pub(crate) struct Registry<E: 'static> {
    /// What the plugins are, for messages ("transport", "congestion control").
    what: &'static str,
    list: RwLock<Vec<&'static E>>,
}

impl<E: Named + Send + Sync + 'static> Registry<E> {
    /// An empty list of plugins of sort `what`.
    pub(crate) const fn new(what: &'static str) -> Registry<E> {
        Registry { what, list: RwLock::new(Vec::new()) }
    }

    /// Adds the entry `make` builds under `name`, unless `name` is one of Braid's own (`builtin`,
    /// an error) or already registered (a no-op: registering twice is harmless).
    pub(crate) fn add(
        &self,
        name: &'static str,
        builtin: &[&str],
        make: impl FnOnce() -> E,
    ) -> Result<(), String> {
        if builtin.contains(&name) {
            return Err(format!("{} `{name}` is one of Braid's own {}s", self.what, self.what));
        }
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        if list.iter().any(|p| p.name() == name) {
            return Ok(());
        }
        if list.len() >= u16::MAX as usize {
            return Err(format!("too many registered {}s", self.what));
        }
        list.push(Box::leak(Box::new(make())));
        Ok(())
    }

    /// The entry registered as number `id` (a number [`Registry::id`] gave).
    pub(crate) fn get(&self, id: u16) -> &'static E {
        self.list.read().unwrap_or_else(|e| e.into_inner())[id as usize]
    }

    /// The number of the entry registered as `name`.
    pub(crate) fn id(&self, name: &str) -> Option<u16> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter().position(|p| p.name() == name).map(|i| i as u16)
    }

    /// The registered names, in registration order.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.list.read().unwrap_or_else(|e| e.into_inner()).iter().map(|p| p.name()).collect()
    }
}
