//! The registry: tools in registration order, scopes with visibility masks,
//! and the presentation mode.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::contract::presentation::Mode;
use indexmap::IndexMap;

use super::approval::{Approver, Decision, Denial};
use super::approvals::{ApprovalLimits, Gate};
use super::availability::{Absence, DeclaredSource};
use super::definition::{ToolDefinition, quoted_name};
use super::handler::{BoxFuture, Tool};
use super::pipeline::{
    self, CallOptions, ExecuteWrapper, Guard, Hooks, Next, PostExecute, ResultObserver,
};
use super::search;
use crate::contract::call::{Call, ToolResult};
use crate::contract::run_code::Language;
// What the registry holds, and the error adding to it gives: both are part
// of its API, so they stay reachable from here.
pub(crate) use super::registered::RegisteredTool;
pub use super::registered::RegistrationError;

pub(crate) use super::registered::ToolMap;

struct RegistryInner {
    /// Copy-on-write: calls take a snapshot without holding the lock.
    tools: RwLock<Arc<ToolMap>>,
    hooks: RwLock<Arc<Hooks>>,
    mode: RwLock<Mode>,
    /// The language run_code speaks: its texts, and the programs the model sends.
    language: RwLock<Language>,
    /// The directory the tools work in, for `run_code`'s description.
    working_directory: RwLock<Option<String>>,
    /// The tool sources declared so far, in order: where their tools go,
    /// and why they are absent. Locked after `tools` when both are.
    sources: Mutex<Vec<DeclaredSource>>,
    /// Bumped on every change of the tools, so presentations can be cached.
    generation: AtomicU64,
    /// The generation after each change, for those who follow changes
    /// (an MCP front end telling its clients `tools/list_changed`).
    changes: tokio::sync::watch::Sender<u64>,
}

/// The tools of one host, in registration order. Cheap to clone (shared).
///
/// Registering a name again replaces the tool in place; removing and adding
/// it puts it last.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<RegistryInner>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("count", &self.count())
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    /// An empty registry in mode [`Mode::Ptc`].
    pub fn new() -> Self {
        Self {
            inner: Arc::new(RegistryInner {
                tools: RwLock::new(Arc::new(IndexMap::new())),
                hooks: RwLock::new(Arc::new(Hooks::default())),
                mode: RwLock::new(Mode::default()),
                language: RwLock::new(Language::default()),
                working_directory: RwLock::new(None),
                sources: Mutex::new(Vec::new()),
                generation: AtomicU64::new(0),
                changes: tokio::sync::watch::Sender::new(0),
            }),
        }
    }

    /// Registers one tool, replacing a tool of the same name in place.
    /// Returns warnings about schema parts that cannot be checked here.
    ///
    /// # Errors
    /// A bad name, a non-object parameters root, or an invalid schema.
    pub fn add(&self, tool: Tool) -> Result<Vec<String>, RegistrationError> {
        self.add_all([tool])
    }

    /// Registers several tools at once, all or nothing; a name given twice
    /// keeps the later definition.
    ///
    /// # Errors
    /// The first tool that cannot be registered; then none is.
    pub fn add_all(
        &self,
        tools: impl IntoIterator<Item = Tool>,
    ) -> Result<Vec<String>, RegistrationError> {
        self.add_located(tools).map_err(|(_, error)| error)
    }

    /// [`add_all`](Self::add_all), whose error also says which tool failed:
    /// its position in `tools`, from 0.
    pub(crate) fn add_located(
        &self,
        tools: impl IntoIterator<Item = Tool>,
    ) -> Result<Vec<String>, (usize, RegistrationError)> {
        let mut warnings = Vec::new();
        let compiled = tools
            .into_iter()
            .enumerate()
            .map(|(index, tool)| {
                RegisteredTool::compile(tool, &mut warnings)
                    .map(Arc::new)
                    .map_err(|error| (index, error))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.mutate(|map| {
            for tool in compiled {
                map.insert(tool.definition.name.clone(), tool);
            }
        });
        Ok(warnings)
    }

    /// Makes `tools` the whole set of tools of the tool source `source`,
    /// in one change, in their order. They make one block: where the
    /// source's tools were, or, for a source declared with
    /// [`declare_source`](Self::declare_source), before the tools of the
    /// sources declared after it (so sources keep their declared order
    /// whatever order their tools arrive in); else at the end. The
    /// source's names missing from `tools` are removed, and a declared
    /// source is no longer absent. A name someone else holds (the host, a
    /// manifest, the workspace tools, another source) is left alone and
    /// that tool left out, so a source can never take over a name, with
    /// the policy and escalation its owner configured. A tool that cannot
    /// be registered is left out too; the others are registered.
    pub(crate) fn replace_source(&self, source: &str, tools: Vec<Tool>) -> SourceUpdate {
        let owner: Arc<str> = source.into();
        let mut update = SourceUpdate::default();
        let mut compiled = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = tool.definition().name.clone();
            match RegisteredTool::compile(tool, &mut update.warnings) {
                Ok(mut tool) => {
                    tool.owner = Some(Arc::clone(&owner));
                    compiled.push(Arc::new(tool));
                }
                Err(error) => update.refused.push((name, error.to_string())),
            }
        }
        self.mutate(|map| {
            let mut sources = self.sources();
            let ours = |tool: &Arc<RegisteredTool>| tool.owner.as_deref() == Some(source);
            let was_at = map.values().position(ours);
            map.retain(|_, tool| !ours(tool));
            let mut block = ToolMap::with_capacity(compiled.len());
            for tool in compiled {
                let name = tool.definition.name.clone();
                if let Some(holder) = map.get(&name) {
                    let holder = holder.owner.as_deref().unwrap_or(
                        "the host (its own tools, a manifest's or the workspace tools)",
                    );
                    let why = format!(
                        "the name is taken by {holder}, and a tool source cannot replace another's tools"
                    );
                    update.refused.push((name, why));
                    continue;
                }
                block.insert(name, tool);
            }
            let rank = |owner: &str| sources.iter().position(|s| s.owner == owner);
            let later = rank(source).and_then(|ours| {
                map.values().position(|tool| {
                    let theirs = tool.owner.as_deref().and_then(rank);
                    theirs.is_some_and(|theirs| theirs > ours)
                })
            });
            let at = later.or(was_at).unwrap_or(map.len());
            let after = map.split_off(at);
            map.extend(block);
            map.extend(after);
            if let Some(declared) = sources.iter_mut().find(|s| s.owner == source) {
                declared.absence = None;
            }
        });
        update
    }

    /// Declares a tool source before its tools arrive (through
    /// [`replace_source`](Self::replace_source)): `owner` is the name
    /// they will be registered under, `label` names it for people
    /// ("MCP server `gh`"), `prefix` starts its tools' names (`gh.`).
    /// Sources keep the order of their declarations; until it registers
    /// its tools, the source is [`Absence::Starting`]. Declaring a source
    /// again changes its label and prefix, not its place (and it is
    /// starting again unless it has tools).
    pub(crate) fn declare_source(&self, owner: &str, label: &str, prefix: &str) {
        let tools = write(&self.inner.tools);
        let has_tools = tools.values().any(|t| t.owner.as_deref() == Some(owner));
        let mut sources = self.sources();
        let declared = DeclaredSource {
            owner: owner.to_owned(),
            label: label.to_owned(),
            prefix: prefix.to_owned(),
            absence: Some(Absence::Starting),
        };
        match sources.iter_mut().find(|s| s.owner == owner) {
            Some(known) => {
                known.label = declared.label;
                known.prefix = declared.prefix;
                if !has_tools {
                    known.absence = declared.absence;
                }
            }
            None => sources.push(declared),
        }
        drop(sources);
        self.announce();
    }

    /// Says why the declared source `owner`'s tools are absent (`None`:
    /// they are not, or no longer expected). A change that `run_code`'s
    /// description shows is a change of the tools ([`changes`](Self::changes)).
    pub(crate) fn set_absence(&self, owner: &str, absence: Option<Absence>) {
        let _tools = write(&self.inner.tools);
        let mut sources = self.sources();
        let Some(declared) = sources.iter_mut().find(|s| s.owner == owner) else {
            return;
        };
        let before = declared.note();
        declared.absence = absence;
        let shown = declared.note() != before;
        drop(sources);
        if shown {
            self.announce();
        }
    }

    /// The lines `run_code`'s description gives the declared sources whose
    /// tools are absent, in their order (none when every source is up).
    pub(crate) fn absence_notes(&self) -> Vec<String> {
        self.sources()
            .iter()
            .filter_map(DeclaredSource::note)
            .collect()
    }

    /// Why there is no tool `name`, when it would be a tool of a declared
    /// source that is absent.
    pub(crate) fn absent_tool_error(&self, name: &str) -> Option<String> {
        let sources = self.sources();
        let source = sources.iter().find(|s| s.covers(name))?;
        source.call_error(name)
    }

    /// Whether a declared source is still starting: the one `name` would
    /// be a tool of, or with `None`, any.
    pub(crate) fn is_starting(&self, name: Option<&str>) -> bool {
        self.sources().iter().any(|source| {
            source.absence == Some(Absence::Starting) && name.is_none_or(|n| source.covers(n))
        })
    }

    /// Resolves once no declared source is starting (the one `name` would
    /// be a tool of, or with `None`, any): each ends its first start ready
    /// or failed within its own start-up timeout. Callers bound the wait
    /// by their own deadline besides.
    pub(crate) async fn started(&self, name: Option<&str>) {
        // Subscribed before looking, so no change falls in between.
        let mut changes = self.changes();
        while self.is_starting(name) {
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    fn sources(&self) -> std::sync::MutexGuard<'_, Vec<DeclaredSource>> {
        self.inner
            .sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes a tool; `true` if it was present.
    pub fn remove(&self, name: &str) -> bool {
        self.remove_all([name])
    }

    /// Removes several tools; `true` only if every one was present.
    pub fn remove_all<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> bool {
        let names: std::collections::HashSet<&str> = names.into_iter().collect();
        let mut all = true;
        // One pass that keeps the order: removing one by one is quadratic.
        self.mutate(|map| {
            all = names.iter().all(|name| map.contains_key(*name));
            map.retain(|name, _| !names.contains(name.as_str()));
        });
        all
    }

    fn mutate(&self, change: impl FnOnce(&mut ToolMap)) {
        let mut guard = write(&self.inner.tools);
        let mut map = ToolMap::clone(&guard);
        change(&mut map);
        *guard = Arc::new(map);
        // Under the lock, so followers see generations in order.
        self.announce();
    }

    /// A new generation, sent to those who follow changes; called with
    /// the tools locked for writing.
    fn announce(&self) {
        let generation = self.inner.generation.fetch_add(1, Ordering::AcqRel) + 1;
        self.inner.changes.send_replace(generation);
    }

    /// Follows changes of the tools: the receiver's value is the registry's
    /// generation, and it is marked changed after every [`add`](Self::add),
    /// [`add_all`](Self::add_all), [`remove`](Self::remove) or
    /// [`remove_all`](Self::remove_all) (a replacement in place included),
    /// and when a tool source (an MCP server) starts, fails to start or
    /// comes up, which `run_code`'s description says. Changes that come
    /// quickly in a row may be seen as one. Mode and hook changes do not
    /// count.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// How many tools are registered.
    pub fn count(&self) -> usize {
        read(&self.inner.tools).len()
    }

    /// The definitions in registration order: fresh copies, never handlers.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.snapshot()
            .values()
            .map(|t| t.definition.clone())
            .collect()
    }

    /// One tool's definition.
    pub fn definition(&self, name: &str) -> Option<ToolDefinition> {
        self.snapshot().get(name).map(|t| t.definition.clone())
    }

    pub(crate) fn snapshot(&self) -> Arc<ToolMap> {
        Arc::clone(&read(&self.inner.tools))
    }

    /// The tools with the generation they belong to, read together.
    fn versioned_snapshot(&self) -> (u64, Arc<ToolMap>) {
        let tools = read(&self.inner.tools);
        (self.generation(), Arc::clone(&tools))
    }

    pub(crate) fn hooks(&self) -> Arc<Hooks> {
        Arc::clone(&read(&self.inner.hooks))
    }

    pub(crate) fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Acquire)
    }

    /// The presentation mode of scopes that do not override it.
    pub fn mode(&self) -> Mode {
        *read(&self.inner.mode)
    }

    /// Sets the default presentation mode. By default, [`Mode::Ptc`].
    pub fn set_mode(&self, mode: Mode) {
        *write(&self.inner.mode) = mode;
    }

    /// The language of `run_code`: what its description and schema say
    /// (the SDK as TypeScript declarations or Python stubs), and what the
    /// programs the model sends through it ([`Engine::invoke`]) are run as.
    ///
    /// [`Engine::invoke`]: crate::Engine::invoke
    pub fn language(&self) -> Language {
        *read(&self.inner.language)
    }

    /// Sets the language of `run_code` (contracts §4). Like the mode, not a
    /// change of the tools. By default, [`Language::TypeScript`].
    pub fn set_language(&self, language: Language) {
        *write(&self.inner.language) = language;
    }

    /// The directory the tools work in, if one was set.
    pub fn working_directory(&self) -> Option<String> {
        read(&self.inner.working_directory).clone()
    }

    /// Sets the directory the tools work in (the workspace tools' root),
    /// which `run_code`'s description then names as given: "The tools work
    /// in `<dir>`: relative paths start there." Like the mode, not a change
    /// of the tools ([`changes`](Self::changes)). By default, none.
    pub fn set_working_directory(&self, directory: Option<String>) {
        *write(&self.inner.working_directory) = directory;
    }

    fn update_hooks(&self, change: impl FnOnce(&mut Hooks)) {
        let mut guard = write(&self.inner.hooks);
        let mut hooks = Hooks::clone(&guard);
        change(&mut hooks);
        *guard = Arc::new(hooks);
    }

    /// Sets the pre-execute policy, which overrides each tool's own `policy`.
    /// By default, each tool's `policy` field decides.
    pub fn set_policy(
        &self,
        policy: impl Fn(&Call, &ToolDefinition) -> Decision + Send + Sync + 'static,
    ) {
        self.update_hooks(|h| h.policy = Some(Arc::new(policy)));
    }

    /// Sets the approver that answers `ask` decisions and runs' requests
    /// for escalation. By default, none: `ask` is refused as `DENIED` and an
    /// escalated run as `denied`, each saying approval was needed.
    pub fn set_approver(&self, approver: impl Approver) {
        self.update_hooks(|h| h.approver = Some(Arc::new(approver)));
    }

    /// Sets how many approvals (`ask` calls and escalations together) may
    /// wait for an answer at once and for how long (contracts §6,
    /// Approvals). By default, [`ApprovalLimits::default`]: 16 at once,
    /// 10 minutes each. Approvals already waiting keep the old limits.
    pub fn set_approval_limits(&self, limits: ApprovalLimits) {
        self.update_hooks(|h| h.approvals = Gate::new(limits));
    }

    /// Adds a guard; guards run in order after the policy and can only deny.
    pub fn add_guard(
        &self,
        guard: impl Fn(&Call, &ToolDefinition) -> Result<(), Denial> + Send + Sync + 'static,
    ) {
        let guard: Guard = Arc::new(guard);
        self.update_hooks(|h| h.guards.push(guard));
    }

    /// Adds an execute wrapper; the first added is the outermost.
    pub fn add_wrapper(
        &self,
        wrapper: impl Fn(&Call, Next) -> BoxFuture<ToolResult> + Send + Sync + 'static,
    ) {
        let wrapper: ExecuteWrapper = Arc::new(wrapper);
        self.update_hooks(|h| {
            let mut all: Vec<ExecuteWrapper> = h.wrappers.iter().cloned().collect();
            all.push(wrapper);
            h.wrappers = all.into();
        });
    }

    /// Adds a post-execute hook that may inspect or replace results; a
    /// `DENIED` result it replaces with a success stays `DENIED`.
    pub fn add_post_execute(
        &self,
        hook: impl Fn(&Call, ToolResult) -> ToolResult + Send + Sync + 'static,
    ) {
        let hook: PostExecute = Arc::new(hook);
        self.update_hooks(|h| h.post.push(hook));
    }

    /// Adds an observer of every final result.
    pub fn add_observer(&self, observer: impl Fn(&Call, &ToolResult) + Send + Sync + 'static) {
        let observer: ResultObserver = Arc::new(observer);
        self.update_hooks(|h| h.observers.push(observer));
    }

    /// A new scope (one per agent) seeing every tool until restricted.
    pub fn scope(&self) -> Scope {
        Scope {
            registry: self.clone(),
            state: Arc::new(Mutex::new(ScopeState::default())),
        }
    }
}

/// What [`Registry::replace_source`] did: warnings about schema parts
/// that cannot be checked here, and the tools left out with why.
#[derive(Debug, Default)]
pub(crate) struct SourceUpdate {
    pub(crate) warnings: Vec<String>,
    pub(crate) refused: Vec<(String, String)>,
}

/// A visibility mask.
#[derive(Debug, Clone)]
enum Mask {
    Allow(HashSet<String>),
    Deny(HashSet<String>),
}

impl Mask {
    fn admits(&self, name: &str) -> bool {
        match self {
            Mask::Allow(names) => names.contains(name),
            Mask::Deny(names) => !names.contains(name),
        }
    }
}

#[derive(Default)]
struct ScopeState {
    masks: Vec<(u64, Mask)>,
    next_mask: u64,
    mode: Option<Mode>,
}

/// One agent's view of a registry: visibility masks that intersect, and an
/// optional presentation-mode override. Cheap to clone (shared).
#[derive(Clone)]
pub struct Scope {
    registry: Registry,
    state: Arc<Mutex<ScopeState>>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

/// A restriction of a scope's visibility, lifted when dropped.
#[must_use = "the restriction is lifted as soon as this handle is dropped"]
pub struct Restriction {
    state: std::sync::Weak<Mutex<ScopeState>>,
    id: u64,
}

impl Drop for Restriction {
    fn drop(&mut self) {
        if let Some(state) = self.state.upgrade() {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.masks.retain(|(id, _)| *id != self.id);
        }
    }
}

impl std::fmt::Debug for Restriction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Restriction").field("id", &self.id).finish()
    }
}

impl Scope {
    fn state(&self) -> std::sync::MutexGuard<'_, ScopeState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn restrict(&self, mask: Mask) -> Restriction {
        let mut state = self.state();
        let id = state.next_mask;
        state.next_mask += 1;
        state.masks.push((id, mask));
        Restriction {
            state: Arc::downgrade(&self.state),
            id,
        }
    }

    /// Only these tools stay visible (intersected with other masks) while the
    /// returned handle lives.
    pub fn allow<S: Into<String>>(&self, names: impl IntoIterator<Item = S>) -> Restriction {
        self.restrict(Mask::Allow(names.into_iter().map(Into::into).collect()))
    }

    /// These tools are hidden while the returned handle lives.
    pub fn deny<S: Into<String>>(&self, names: impl IntoIterator<Item = S>) -> Restriction {
        self.restrict(Mask::Deny(names.into_iter().map(Into::into).collect()))
    }

    /// The registry behind this scope.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// This scope's presentation mode: its override, else the registry's.
    pub fn mode(&self) -> Mode {
        self.state().mode.unwrap_or_else(|| self.registry.mode())
    }

    /// Overrides the registry's mode for this scope; `None` follows the registry.
    /// By default, the registry's mode.
    pub fn set_mode(&self, mode: Option<Mode>) {
        self.state().mode = mode;
    }

    /// Whether a registered tool of this name is visible here.
    pub fn is_visible(&self, name: &str) -> bool {
        self.registry.snapshot().contains_key(name) && self.admits(name)
    }

    fn admits(&self, name: &str) -> bool {
        self.state().masks.iter().all(|(_, mask)| mask.admits(name))
    }

    /// The visible definitions, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let (tools, visible) = self.visible_snapshot();
        super::registered::shown(&tools, &visible)
            .cloned()
            .collect()
    }

    /// The registry's tools and generation now (one version), with whether
    /// each (in order) is visible here.
    pub(crate) fn versioned_visible(&self) -> (u64, Arc<ToolMap>, Vec<bool>) {
        let (generation, tools) = self.registry.versioned_snapshot();
        let visible = self.visibility(&tools);
        (generation, tools, visible)
    }

    fn visibility(&self, tools: &ToolMap) -> Vec<bool> {
        let state = self.state();
        tools
            .keys()
            .map(|name| state.masks.iter().all(|(_, m)| m.admits(name)))
            .collect()
    }

    /// The registry's tools now, with whether each (in order) is visible here.
    pub(crate) fn visible_snapshot(&self) -> (Arc<ToolMap>, Vec<bool>) {
        let tools = self.registry.snapshot();
        let visible = self.visibility(&tools);
        (tools, visible)
    }

    /// `tools.$search` here: the visible tools `query` finds, best first,
    /// `limit` clamped to 1 … 50.
    pub(crate) fn search(&self, query: &str, limit: u32) -> Vec<search::Found> {
        let (tools, visible) = self.visible_snapshot();
        search::search(&tools, &visible, query, limit)
    }

    /// The visible tool of this name, compiled.
    pub(crate) fn lookup(&self, name: &str) -> Option<Arc<RegisteredTool>> {
        let tool = self.registry.snapshot().get(name).cloned()?;
        self.admits(name).then_some(tool)
    }

    /// Runs one call through the pipeline (contracts §3). Every failure is a
    /// result; this never panics on a handler's behalf.
    pub fn call(
        &self,
        call: Call,
        options: CallOptions,
    ) -> impl std::future::Future<Output = ToolResult> + Send + 'static {
        self.call_resolved(self.lookup(&call.name), call, options)
    }

    /// [`call`](Self::call) with the tool already looked up (`None`: unknown).
    /// A call to a tool of a source that is still starting waits for it
    /// (until it is ready or failed, or the call is cancelled), then is
    /// looked up again; any other call is answered as at once as before.
    pub(crate) fn call_resolved(
        &self,
        tool: Option<Arc<RegisteredTool>>,
        call: Call,
        options: CallOptions,
    ) -> impl std::future::Future<Output = ToolResult> + Send + 'static {
        use futures::future::Either;
        if tool.is_none() && self.registry.is_starting(Some(&call.name)) {
            let scope = self.clone();
            return Either::Left(async move {
                tokio::select! {
                    () = scope.registry.started(Some(&call.name)) => {}
                    () = options.cancel.cancelled() => {}
                }
                let tool = scope.lookup(&call.name);
                scope.execute(tool, call, options).await
            });
        }
        Either::Right(self.execute(tool, call, options))
    }

    /// How a sub-call to `name`, looked up as `tool`, is scheduled: a tool
    /// of a source still starting counts as mutating (it runs alone), since
    /// whether it writes is not known until the source is ready; an
    /// unknown tool as read-only (it is refused at once).
    pub(crate) fn schedules_as_read_only(
        &self,
        tool: Option<&Arc<RegisteredTool>>,
        name: &str,
    ) -> bool {
        match tool {
            Some(tool) => tool.definition.read_only,
            None => !self.registry.is_starting(Some(name)),
        }
    }

    fn execute(
        &self,
        tool: Option<Arc<RegisteredTool>>,
        call: Call,
        options: CallOptions,
    ) -> impl std::future::Future<Output = ToolResult> + Send + 'static {
        let absent = match &tool {
            None => Some(
                self.registry
                    .absent_tool_error(&call.name)
                    .unwrap_or_else(|| self.unknown_tool_error(&call.name)),
            ),
            Some(_) => None,
        };
        pipeline::execute(tool, absent, self.registry.hooks(), call, options)
    }

    /// ``unknown tool `x` ``, with the nearest visible names when some are
    /// near (contracts §3).
    fn unknown_tool_error(&self, name: &str) -> String {
        let shown = quoted_name(name);
        if name.len() > 128 {
            // No tool is near a name longer than any tool's.
            return format!("unknown tool: {shown}");
        }
        let (tools, visible) = self.visible_snapshot();
        let nearest = search::nearest(&tools, &visible, name);
        if nearest.is_empty() {
            return format!("unknown tool {shown}");
        }
        let names: Vec<String> = nearest.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "unknown tool {shown}; nearest visible tools: {}",
            names.join(", ")
        )
    }

    /// Runs calls concurrently; results come back in input order.
    pub async fn call_batch(&self, calls: Vec<Call>, options: CallOptions) -> Vec<ToolResult> {
        futures::future::join_all(calls.into_iter().map(|c| self.call(c, options.clone()))).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::call::ErrorCode;
    use crate::tool::context::ToolContext;
    use serde_json::Value;
    use tokio_util::sync::CancellationToken;

    fn tool(name: &str) -> Tool {
        Tool::new(
            ToolDefinition::new(name),
            |args: Value, _cx: ToolContext| async move {
                Ok::<_, crate::contract::call::ToolError>(args)
            },
        )
    }

    #[test]
    fn a_source_replaces_only_its_own_names() {
        let registry = Registry::new();
        registry.add(tool("host")).unwrap();
        let update = registry.replace_source("s", vec![tool("mine"), tool("gone")]);
        assert!(update.refused.is_empty());
        let update = registry.replace_source("other", vec![tool("mine"), tool("host")]);
        let refused: Vec<&str> = update.refused.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(refused, ["mine", "host"]);
        assert!(update.refused[0].1.starts_with("the name is taken by s,"));
        assert!(
            update.refused[1]
                .1
                .starts_with("the name is taken by the host")
        );
        registry.replace_source("s", vec![tool("mine"), tool("new")]);
        let names: Vec<String> = registry.definitions().into_iter().map(|d| d.name).collect();
        assert_eq!(
            names,
            ["host", "mine", "new"],
            "`gone` removed, the host's kept"
        );
    }

    fn names(registry: &Registry) -> Vec<String> {
        registry.definitions().into_iter().map(|d| d.name).collect()
    }

    #[test]
    fn declared_sources_keep_their_order_whatever_order_they_register_in() {
        let orders = [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]];
        let mut listings = Vec::new();
        for order in orders {
            let registry = Registry::new();
            registry.add(tool("host")).unwrap();
            for source in ["a", "b", "c"] {
                registry.declare_source(source, source, &format!("{source}."));
            }
            for source in order {
                let tools = ["z", "m"].map(|t| tool(&format!("{source}.{t}")));
                registry.replace_source(source, tools.into());
                // A re-listing at start changes nothing.
                let tools = ["z", "m"].map(|t| tool(&format!("{source}.{t}")));
                registry.replace_source(source, tools.into());
            }
            listings.push(names(&registry));
        }
        assert_eq!(
            listings[0],
            ["host", "a.z", "a.m", "b.z", "b.m", "c.z", "c.m"]
        );
        assert!(listings.iter().all(|l| *l == listings[0]), "{listings:?}");
    }

    #[test]
    fn a_relisting_takes_the_sources_new_order_at_its_place() {
        let registry = Registry::new();
        for source in ["a", "b"] {
            registry.declare_source(source, source, &format!("{source}."));
        }
        registry.replace_source("b", vec![tool("b.x")]);
        registry.replace_source("a", vec![tool("a.x"), tool("a.y")]);
        registry.replace_source("a", vec![tool("a.new"), tool("a.y"), tool("a.x")]);
        assert_eq!(names(&registry), ["a.new", "a.y", "a.x", "b.x"]);
        // Undeclared sources keep their block where it was, or go last.
        registry.replace_source("u", vec![tool("u.x")]);
        registry.add(tool("host")).unwrap();
        registry.replace_source("u", vec![tool("u.y"), tool("u.x")]);
        assert_eq!(
            names(&registry),
            ["a.new", "a.y", "a.x", "b.x", "u.y", "u.x", "host"]
        );
    }

    #[test]
    fn absent_sources_are_noted_and_explain_unknown_tools() {
        let registry = Registry::new();
        registry.declare_source("s", "MCP server `s`", "s.");
        let mut changes = registry.changes();
        changes.mark_unchanged();
        assert_eq!(
            registry.absence_notes(),
            ["MCP server `s` is still starting: its tools (`s.*`) are not declared yet."]
        );
        assert!(registry.absent_tool_error("other.x").is_none());
        assert!(
            registry
                .absent_tool_error("s.x")
                .unwrap()
                .contains("is still starting")
        );
        let failed = |at| Absence::Failed {
            why: "no".to_owned(),
            retry_at: at,
        };
        registry.set_absence("s", Some(failed(None)));
        assert!(changes.has_changed().unwrap(), "the description changed");
        changes.mark_unchanged();
        registry.set_absence("s", Some(failed(Some(std::time::Instant::now()))));
        assert!(
            !changes.has_changed().unwrap(),
            "the description did not change: no list_changed"
        );
        registry.replace_source("s", vec![tool("s.x")]);
        assert!(registry.absence_notes().is_empty());
        assert!(registry.absent_tool_error("s.y").is_none());

        // Declared again (a restart): starting again unless it has tools.
        registry.declare_source("t", "MCP server `t`", "t.");
        registry.set_absence("t", Some(failed(None)));
        registry.declare_source("s", "MCP server `s`", "s.");
        registry.declare_source("t", "MCP server `t`", "t.");
        assert_eq!(
            registry.absence_notes(),
            ["MCP server `t` is still starting: its tools (`t.*`) are not declared yet."]
        );
    }

    #[tokio::test]
    async fn a_call_to_a_source_still_starting_waits_for_it() {
        let registry = Registry::new();
        registry.add(tool("host")).unwrap();
        registry.declare_source("s", "MCP server `s`", "s.");
        registry.declare_source("t", "MCP server `t`", "t.");
        let scope = registry.scope();
        assert!(registry.is_starting(Some("s.x")) && registry.is_starting(None));
        assert!(!registry.is_starting(Some("host")));
        // A mutating call of the source may be one of them: it runs alone.
        assert!(!scope.schedules_as_read_only(None, "s.x"));
        assert!(scope.schedules_as_read_only(None, "nothing"));

        let waiting = tokio::spawn(scope.call(
            Call::new("1", "s.x", serde_json::json!({"k": 1})),
            CallOptions::default(),
        ));
        let failing = tokio::spawn(scope.call(
            Call::new("2", "t.x", serde_json::json!({})),
            CallOptions::default(),
        ));
        let cancel = CancellationToken::new();
        let cancelled = tokio::spawn(scope.call(
            Call::new("3", "s.x", serde_json::json!({})),
            CallOptions::default().with_cancel(cancel.clone()),
        ));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished() && !failing.is_finished());
        cancel.cancel();
        let error = cancelled.await.unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::AbortedBeforeDispatch);

        registry.replace_source("s", vec![tool("s.x")]);
        assert_eq!(
            waiting.await.unwrap().unwrap().value,
            serde_json::json!({"k": 1})
        );
        assert!(registry.is_starting(None), "`t` still is");
        registry.set_absence(
            "t",
            Some(Absence::Failed {
                why: "no".to_owned(),
                retry_at: None,
            }),
        );
        let error = failing.await.unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownTool);
        assert!(
            error.message.contains("failed to start: no"),
            "{}",
            error.message
        );
        registry.started(None).await;
        assert!(!registry.is_starting(None));
    }

    #[test]
    fn followers_see_the_generation_of_each_change() {
        let registry = Registry::new();
        let mut changes = registry.changes();
        registry.add(tool("a")).unwrap();
        registry.add(tool("b")).unwrap();
        assert!(changes.has_changed().unwrap());
        assert_eq!(*changes.borrow_and_update(), 2);
        assert_eq!(registry.generation(), 2);
    }

    #[test]
    fn a_failed_batch_names_the_first_failing_position() {
        let registry = Registry::new();
        let batch = [tool("a"), tool("b"), tool("bad name"), tool("run_code")];
        let (index, error) = registry.add_located(batch).unwrap_err();
        assert_eq!(index, 2);
        assert!(matches!(error, RegistrationError::InvalidName { .. }));
        assert_eq!(registry.count(), 0, "all or nothing");
    }
}
