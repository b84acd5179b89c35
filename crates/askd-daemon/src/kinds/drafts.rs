//! The question builder (`survey.md` §10): draft files, the manifest, the three tools'
//! operations and the transitions a launched draft takes when its ask settles.
//!
//! - **Files** live in `<workspace>/.askd/survey-drafts/<slug>.json`, or
//!   `<data dir>/survey-drafts/files/<slug>.json` for a session without a workspace. They are
//!   authoritative for content and re-read on every operation (hand edits take effect); every
//!   write is atomic (a temporary file in the same directory, flushed, renamed).
//! - **The manifest** (the store's draft rows) is authoritative for the status, the active
//!   pointers and the launched ask; each manifest write appends its `draft.updated` event in
//!   the same transaction.
//! - **Locks** (the daemon's, [`crate::locks`]). Every operation on a draft holds that
//!   draft's lock; `begin` also holds the begin lock while it picks a free slug.
//! - The routes are in `crate::http::drafts`.
//! - The rules themselves (stub-in, patch, structure, the checklist, the gate, the messages)
//!   are the core's: [`askd_core::survey::draft`].

use std::path::{Component, Path, PathBuf};

use askd_core::json::Json;
use askd_core::survey::draft::{
    self, DraftError, DraftFile, Grounding, LaunchState, Op, Status, Target, codes,
};
use askd_store::{
    ActivePointer, AskState, Draft, DraftProgress, DraftSave, Event, Session, StoreError,
};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// A builder refusal as an API error: a missing draft is 404, a status conflict 409, every
/// other refusal 422.
pub fn draft_error(e: DraftError) -> ApiError {
    let status = match e.code {
        codes::MISSING => StatusCode::NOT_FOUND,
        codes::STATE => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    ApiError {
        status,
        code: e.code.to_string(),
        message: e.message,
        errors: (!e.errors.is_empty()).then_some(e.errors),
        details: None,
    }
}

fn refuse(code: &'static str, message: impl Into<String>) -> ApiError {
    draft_error(DraftError::new(code, message))
}

/// A launch: the survey ask to wait on, and whether it is new.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftLaunched {
    pub ask_id: String,
    pub url: String,
    pub created: bool,
    pub slug: String,
}

/// A draft as one operation sees it: the manifest row, the file and its path.
struct Loaded {
    row: Draft,
    file: DraftFile,
    path: PathBuf,
}

fn status_of(row: &Draft) -> Status {
    Status::parse(&row.status).unwrap_or(Status::Building)
}

/// The `file` the agent sees: workspace-relative inside a workspace, absolute otherwise.
fn reported_file(row: &Draft) -> String {
    if let Some(ws) = &row.workspace
        && let Ok(rel) = Path::new(&row.file).strip_prefix(ws)
    {
        return rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
    }
    row.file.clone()
}

/// The `draft.updated` payload of a row (§12.16); a discard sends the short form.
fn event_payload(row: &Draft) -> Value {
    if row.status == Status::Discarded.as_str() {
        return json!({"session": row.session_id, "slug": row.slug, "status": row.status,
                      "updatedAt": row.updated_at});
    }
    let mut v = json!({
        "session": row.session_id,
        "slug": row.slug,
        "title": row.title,
        "status": row.status,
        "revision": row.revision,
        "updatedAt": row.updated_at,
        "ready": row.ready,
        "progress": progress_json(&row.progress),
        "file": reported_file(row),
    });
    if let Some(a) = &row.ask_id {
        v["askId"] = json!(a);
    }
    v
}

fn progress_json(p: &DraftProgress) -> Value {
    json!({"questions": p.questions, "complete": p.complete, "missingFields": p.missing_fields})
}

/// The manifest row that describes `file` (progress and readiness computed from it).
fn row_of(base: &Draft, file: &DraftFile) -> Draft {
    let c = draft::completeness(&file.survey);
    Draft {
        slug: base.slug.clone(),
        session_id: base.session_id.clone(),
        title: file.display_title(),
        status: file.status.as_str().to_string(),
        file: base.file.clone(),
        workspace: base.workspace.clone(),
        created_at: file.created_at.clone(),
        updated_at: file.updated_at.clone(),
        revision: i64::try_from(file.revision).unwrap_or(i64::MAX),
        ready: draft::launchable(&file.survey, file.grounding),
        progress: DraftProgress {
            questions: c.totals.questions as i64,
            complete: c.totals.complete as i64,
            missing_fields: c.totals.missing_fields as i64,
        },
        grounding: file.grounding.as_str().to_string(),
        ask_id: file.ask_id.clone(),
    }
}

fn read_file(path: &Path, slug: &str) -> Option<DraftFile> {
    let text = std::fs::read_to_string(path).ok()?;
    DraftFile::parse(&text, slug)
}

/// Writes `text` to `path` atomically ([`crate::atomic::write`]), creating its directory.
fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    crate::atomic::write(path, text.as_bytes(), 0o666)
}

async fn write_file(path: &Path, file: &DraftFile) -> std::io::Result<()> {
    let path = path.to_path_buf();
    let text = file.to_text();
    tokio::task::spawn_blocking(move || write_atomic(&path, &text))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
}

/// The canonical form of `p`: its longest existing leading part canonicalised (symlinks
/// resolved), the rest appended with `.` dropped and `..` taken lexically.
fn canonical(p: &Path) -> PathBuf {
    let comps: Vec<Component> = p.components().collect();
    let mut k = comps.len();
    let mut out = loop {
        if k == 0 {
            break PathBuf::new();
        }
        let prefix: PathBuf = comps[..k].iter().collect();
        if let Ok(c) = std::fs::canonicalize(&prefix) {
            break c;
        }
        k -= 1;
    };
    for c in &comps[k..] {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The drafts directory of a workspace, created, and checked to resolve inside it.
fn workspace_dir(ws: &str) -> Result<PathBuf, String> {
    if !Path::new(ws).is_dir() {
        return Err(format!("the session workspace {ws} is not a directory"));
    }
    let dir = Path::new(ws).join(draft::WORKSPACE_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let root = std::fs::canonicalize(ws).map_err(|e| format!("workspace {ws}: {e}"))?;
    let real = std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !real.starts_with(&root) {
        return Err(format!(
            "{} resolves to {}, outside the workspace {}",
            dir.display(),
            real.display(),
            root.display()
        ));
    }
    Ok(dir)
}

/// `file=` (§10.4 step 1): the workspace file's members overlaid by the inline arguments.
fn with_file(
    args: &Value,
    workspace: Option<&str>,
    max_bytes: usize,
) -> ApiResult<Map<String, Value>> {
    let Some(inline) = args.as_object() else {
        return Err(refuse(
            codes::BAD_OP,
            "survey_draft_set arguments must be a JSON object",
        ));
    };
    let Some(f) = inline.get("file").filter(|f| !f.is_null()) else {
        return Ok(inline.clone());
    };
    let Some(f) = f.as_str() else {
        return Err(refuse(
            codes::BAD_FILE,
            format!("survey_draft_set file must be a path string, got {f}"),
        ));
    };
    let no_workspace = || {
        refuse(
            codes::BAD_FILE,
            "survey_draft_set file= needs a session workspace — send the payload inline instead",
        )
    };
    let ws = workspace.ok_or_else(no_workspace)?;
    let root = std::fs::canonicalize(ws).map_err(|_| no_workspace())?;
    let raw = Path::new(f);
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        root.join(raw)
    };
    let resolved = canonical(&joined);
    if !resolved.starts_with(&root) {
        return Err(refuse(
            codes::BAD_FILE,
            format!(
                "survey_draft_set file \"{f}\" must live inside the workspace ({})",
                root.display()
            ),
        ));
    }
    let unreadable = |why: Option<String>| {
        let mut m = format!(
            "survey_draft_set file \"{f}\" could not be read (resolved: {})",
            resolved.display()
        );
        if let Some(w) = why {
            m.push_str(&format!(": {w}"));
        }
        refuse(codes::BAD_FILE, m)
    };
    let meta = std::fs::metadata(&resolved).map_err(|_| unreadable(None))?;
    if !meta.is_file() {
        return Err(unreadable(Some("not a regular file".into())));
    }
    if meta.len() > max_bytes as u64 {
        return Err(unreadable(Some(format!(
            "larger than maxBodyBytes ({max_bytes} bytes)"
        ))));
    }
    let text = std::fs::read_to_string(&resolved).map_err(|_| unreadable(None))?;
    let parsed: Value = serde_json::from_str(&text).map_err(|e| {
        refuse(
            codes::BAD_FILE,
            format!("survey_draft_set file \"{f}\" is not valid JSON: {e}"),
        )
    })?;
    let Value::Object(mut params) = parsed else {
        return Err(refuse(
            codes::BAD_FILE,
            format!("survey_draft_set file \"{f}\" must carry a JSON object"),
        ));
    };
    for (k, v) in inline {
        params.insert(k.clone(), v.clone());
    }
    params.shift_remove("file");
    Ok(params)
}

/// A failed store or file operation of the builder; a full disk is the 507 every write gets.
fn store_failure<E: std::fmt::Display + 'static>(prefix: &str, e: E) -> ApiError {
    let any = &e as &dyn std::any::Any;
    if let Some(StoreError::StorageFull(_)) = any.downcast_ref::<StoreError>() {
        tracing::error!(error = %e, "{prefix}: the disk is full");
        return ApiError::storage_full();
    }
    refuse(codes::BAD_OP, format!("{prefix}: {e}"))
}

/// A draft file that could not be written.
fn file_failure(prefix: &str, path: &Path, e: std::io::Error) -> ApiError {
    if e.kind() == std::io::ErrorKind::StorageFull {
        tracing::error!(path = %path.display(), "{prefix}: the disk is full");
        return ApiError::storage_full();
    }
    refuse(
        codes::BAD_OP,
        format!("{prefix}: cannot write {}: {e}", path.display()),
    )
}

/// The question builder (`survey_draft_*`, survey.md §10) of a daemon: [`Daemon::builder`].
pub struct Builder<'a> {
    d: &'a Daemon,
}

impl Daemon {
    /// The question builder: draft files, the manifest, launch and the settle transitions.
    pub fn builder(&self) -> Builder<'_> {
        Builder { d: self }
    }
}

impl Builder<'_> {
    fn fallback_dir(&self) -> PathBuf {
        let dir = self.d.settings.data_dir.join(draft::FALLBACK_DIR);
        let _ = std::fs::create_dir_all(&dir);
        std::fs::canonicalize(&dir).unwrap_or(dir)
    }

    async fn session(&self, session_id: &str) -> ApiResult<Session> {
        self.d
            .store
            .session(session_id)
            .await
            .map_err(|e| ApiError::store(e, "-"))?
            .ok_or_else(|| ApiError::store(StoreError::UnknownSession(session_id.into()), "-"))
    }

    /// The explicit slug, else the session's active draft (§10.4 step 2).
    async fn resolve_slug(
        &self,
        session: &Session,
        explicit: Option<String>,
        prefix: &str,
    ) -> ApiResult<String> {
        if let Some(s) = explicit {
            return Ok(s);
        }
        self.d
            .store
            .active_draft(&session.id)
            .await
            .map_err(|e| store_failure(prefix, e))?
            .ok_or_else(|| {
                refuse(
                    codes::MISSING,
                    format!("{prefix}: no draft yet — begin one with survey_draft_set op=begin"),
                )
            })
    }

    /// Reads a draft: its manifest row and its file, registering a file the manifest lost
    /// (the session's workspace first, then the fallback directory), and applying a settle
    /// transition the daemon missed.
    async fn open(
        &self,
        session: &Session,
        slug: &str,
        prefix: &str,
        events: &mut Vec<Event>,
    ) -> ApiResult<Loaded> {
        let unreadable = || {
            refuse(
                codes::MISSING,
                format!(
                    "{prefix}: draft \"{slug}\" could not be read — it may have been deleted by hand"
                ),
            )
        };
        if !draft::is_slug(slug) {
            return Err(unreadable());
        }
        let row = self
            .d
            .store
            .draft(slug)
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let mut loaded = match row {
            Some(row) => {
                let path = PathBuf::from(&row.file);
                let file = read_file(&path, slug).ok_or_else(unreadable)?;
                Loaded { row, file, path }
            }
            None => {
                let mut candidates: Vec<(PathBuf, Option<String>)> = Vec::new();
                if let Some(ws) = &session.workspace {
                    candidates.push((Path::new(ws).join(draft::WORKSPACE_DIR), Some(ws.clone())));
                }
                candidates.push((self.fallback_dir(), None));
                let found = candidates.into_iter().find_map(|(dir, ws)| {
                    let path = dir.join(format!("{slug}.json"));
                    read_file(&path, slug).map(|f| (path, ws, f))
                });
                let (path, workspace, mut file) = found.ok_or_else(unreadable)?;
                self.register(session, slug, &path, workspace, &mut file, prefix)
                    .await?
            }
        };
        if loaded.row.status == Status::Launched.as_str()
            && let Some(ask_id) = loaded.row.ask_id.clone()
            && let Ok(ask) = self.d.load(&ask_id).await
            && ask.state == AskState::Settled
        {
            let outcome = ask.outcome.unwrap_or_default();
            events.extend(self.apply_settle(&mut loaded, &outcome).await);
        }
        Ok(loaded)
    }

    /// Registers a draft file the manifest does not know, under the calling session.
    async fn register(
        &self,
        session: &Session,
        slug: &str,
        path: &Path,
        workspace: Option<String>,
        file: &mut DraftFile,
        prefix: &str,
    ) -> ApiResult<Loaded> {
        // A launch whose ask this store does not know cannot be attached to.
        if let Some(a) = &file.ask_id
            && self.d.store.ask(a).await.ok().flatten().is_none()
        {
            file.ask_id = None;
            if file.status == Status::Launched {
                file.status = Status::Reopened;
            }
        }
        let now = askd_store::now();
        if file.created_at.is_empty() {
            file.created_at = now.clone();
        }
        if file.updated_at.is_empty() {
            file.updated_at = now;
        }
        file.slug = slug.to_string();
        let base = Draft {
            slug: slug.to_string(),
            session_id: session.id.clone(),
            title: String::new(),
            status: String::new(),
            file: path.to_string_lossy().into_owned(),
            workspace,
            created_at: String::new(),
            updated_at: String::new(),
            revision: 0,
            ready: false,
            progress: DraftProgress::default(),
            grounding: String::new(),
            ask_id: None,
        };
        let row = row_of(&base, file);
        self.d
            .store
            .save_draft(DraftSave {
                draft: row.clone(),
                active: ActivePointer::Keep,
                event: None,
                expect: None,
            })
            .await
            .map_err(|e| store_failure(prefix, e))?;
        Ok(Loaded {
            row,
            file: file.clone(),
            path: path.to_path_buf(),
        })
    }

    /// The settle transition of a launched draft (§10.3), under its lock: `answered`, or
    /// `reopened` and active again. The manifest first (a compare-and-set on `launched` and
    /// the ask), then the file when there is one.
    async fn apply_settle(&self, loaded: &mut Loaded, outcome: &str) -> Vec<Event> {
        let (row, events) = self.settle_manifest(&loaded.row, outcome).await;
        let Some(row) = row else {
            return events;
        };
        loaded.file.status = status_of(&row);
        loaded.file.updated_at = row.updated_at.clone();
        loaded.row = row;
        if let Err(e) = write_file(&loaded.path, &loaded.file).await {
            tracing::warn!(slug = %loaded.row.slug, error = %e, "cannot write the draft file");
        }
        events
    }

    /// The manifest half of a settle transition: the new row when it was written.
    async fn settle_manifest(&self, current: &Draft, outcome: &str) -> (Option<Draft>, Vec<Event>) {
        let status = Status::after_settle(outcome);
        let mut row = current.clone();
        row.status = status.as_str().into();
        row.updated_at = askd_store::now();
        let active = if status == Status::Reopened {
            ActivePointer::Set(row.session_id.clone())
        } else {
            ActivePointer::Keep
        };
        let saved = self
            .d
            .store
            .save_draft(DraftSave {
                draft: row.clone(),
                active,
                event: Some(event_payload(&row)),
                expect: Some((Status::Launched.as_str().into(), current.ask_id.clone())),
            })
            .await;
        match saved {
            Ok(e) => (Some(row), e.into_iter().collect()),
            Err(e) => {
                tracing::warn!(slug = %row.slug, error = %e, "draft settle transition not applied");
                (None, Vec::new())
            }
        }
    }

    /// Called when a survey ask settles: the draft launched as that ask follows (§10.3).
    /// Returns the committed events for the caller to publish; never fails the settle.
    pub(crate) async fn on_settle(&self, ask_id: &str, outcome: &str) -> Vec<Event> {
        let Ok(Some(row)) = self.d.store.draft_by_ask(ask_id).await else {
            return Vec::new();
        };
        if row.status != Status::Launched.as_str() {
            return Vec::new();
        }
        let Ok(_guard) = self.d.locks.draft(self.d.store.as_ref(), &row.slug).await else {
            tracing::warn!(slug = %row.slug, "draft settle transition not applied: no draft lock");
            return Vec::new();
        };
        let Ok(Some(row)) = self.d.store.draft(&row.slug).await else {
            return Vec::new();
        };
        if row.status != Status::Launched.as_str() || row.ask_id.as_deref() != Some(ask_id) {
            return Vec::new();
        }
        let path = PathBuf::from(&row.file);
        match read_file(&path, &row.slug) {
            Some(file) => {
                let mut loaded = Loaded { row, file, path };
                self.apply_settle(&mut loaded, outcome).await
            }
            // The file is gone: the manifest still follows the settle.
            None => self.settle_manifest(&row, outcome).await.1,
        }
    }

    /// `survey_draft_set` (§10.4) for `session_id`.
    pub async fn set(&self, session_id: &str, args: &Value) -> ApiResult<Value> {
        let session = self.session(session_id).await?;
        let args = with_file(args, session.workspace.as_deref(), self.d.max_body_bytes())?;
        let op = draft::parse_op(&args).map_err(draft_error)?;
        let grounding = draft::parse_grounding(&args).map_err(draft_error)?;
        let explicit = draft::parse_slug(&args).map_err(draft_error)?;
        let mut events = Vec::new();
        let result = match op {
            Op::Begin => self.begin(&session, &args, grounding, &mut events).await,
            _ => {
                let prefix = format!("survey_draft_set {} failed", op.as_str());
                let slug = self.resolve_slug(&session, explicit, &prefix).await?;
                let _guard = self
                    .d
                    .locks
                    .draft(self.d.store.as_ref(), &slug)
                    .await
                    .map_err(|e| store_failure(&prefix, e))?;
                match self.open(&session, &slug, &prefix, &mut events).await {
                    Ok(loaded) => {
                        self.op(&session, op, &args, grounding, loaded, &prefix, &mut events)
                            .await
                    }
                    Err(e) => Err(e),
                }
            }
        };
        self.d.hub.publish(events);
        result
    }

    async fn begin(
        &self,
        session: &Session,
        args: &Map<String, Value>,
        grounding: Option<Grounding>,
        events: &mut Vec<Event>,
    ) -> ApiResult<Value> {
        let prefix = "survey_draft_set begin failed";
        let edited = draft::begin(args).map_err(draft_error)?;
        let _begin = self
            .d
            .locks
            .draft_begin(self.d.store.as_ref())
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let (dir, workspace) = match &session.workspace {
            Some(ws) => (
                workspace_dir(ws).map_err(|e| store_failure(prefix, e))?,
                Some(ws.clone()),
            ),
            None => (self.fallback_dir(), None),
        };
        let active = self
            .d
            .store
            .active_draft(&session.id)
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let base = draft::base_slug(&edited.title);
        let mut slug = base.clone();
        let mut n = 1u64;
        loop {
            let taken = active.as_deref() == Some(slug.as_str())
                || dir.join(format!("{slug}.json")).exists()
                || self
                    .d
                    .store
                    .draft(&slug)
                    .await
                    .map_err(|e| store_failure(prefix, e))?
                    .is_some();
            if !taken {
                break;
            }
            n += 1;
            slug = format!("{base}-{n}");
        }
        let _guard = self
            .d
            .locks
            .draft(self.d.store.as_ref(), &slug)
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let now = askd_store::now();
        let file = DraftFile {
            slug: slug.clone(),
            title: edited.title,
            status: Status::Building,
            session: session.id.clone(),
            created_at: now.clone(),
            updated_at: now,
            revision: 0,
            grounding: grounding.unwrap_or_default(),
            ask_id: None,
            survey: edited.survey,
        };
        let path = dir.join(format!("{slug}.json"));
        let base_row = Draft {
            slug: slug.clone(),
            session_id: session.id.clone(),
            title: String::new(),
            status: String::new(),
            file: path.to_string_lossy().into_owned(),
            workspace,
            created_at: String::new(),
            updated_at: String::new(),
            revision: 0,
            ready: false,
            progress: DraftProgress::default(),
            grounding: String::new(),
            ask_id: None,
        };
        let row = row_of(&base_row, &file);
        self.commit(session, Op::Begin, row, file, path, prefix, events)
            .await
    }

    /// Writes the file, then the manifest row with the session's active pointer and the
    /// event (§10.4 step 5), and shapes the result.
    #[allow(clippy::too_many_arguments)]
    async fn commit(
        &self,
        session: &Session,
        op: Op,
        row: Draft,
        file: DraftFile,
        path: PathBuf,
        prefix: &str,
        events: &mut Vec<Event>,
    ) -> ApiResult<Value> {
        write_file(&path, &file)
            .await
            .map_err(|e| file_failure(prefix, &path, e))?;
        let event = self
            .d
            .store
            .save_draft(DraftSave {
                draft: row.clone(),
                active: ActivePointer::Set(session.id.clone()),
                event: Some(event_payload(&row)),
                expect: None,
            })
            .await
            .map_err(|e| store_failure(prefix, e))?;
        events.extend(event);
        let active = self.is_active(session, &row.slug).await;
        Ok(set_result(op, &row, &file, active))
    }

    async fn is_active(&self, session: &Session, slug: &str) -> bool {
        self.d
            .store
            .active_draft(&session.id)
            .await
            .ok()
            .flatten()
            .as_deref()
            == Some(slug)
    }

    #[allow(clippy::too_many_arguments)]
    async fn op(
        &self,
        session: &Session,
        op: Op,
        args: &Map<String, Value>,
        grounding: Option<Grounding>,
        loaded: Loaded,
        prefix: &str,
        events: &mut Vec<Event>,
    ) -> ApiResult<Value> {
        let Loaded {
            row,
            mut file,
            path,
        } = loaded;
        let status = status_of(&row);
        let now = askd_store::now();
        match op {
            Op::Patch | Op::Structure => {
                let title = file.display_title();
                let target = Target {
                    slug: &row.slug,
                    title: &title,
                    status,
                    ask_id: row.ask_id.as_deref(),
                    cap: self.d.settings.structure_question_cap,
                };
                let edited = if op == Op::Patch {
                    draft::patch(&file.survey, args, target)
                } else {
                    draft::structure(&file.survey, args, target)
                }
                .map_err(draft_error)?;
                if op == Op::Structure {
                    file.revision += 1;
                }
                file.title = edited.title;
                file.survey = edited.survey;
                file.status = Status::Building;
                file.session = row.session_id.clone();
                file.slug = row.slug.clone();
                file.ask_id = row.ask_id.clone();
                file.updated_at = now;
                if let Some(g) = grounding {
                    file.grounding = g;
                }
                let new_row = row_of(&row, &file);
                self.commit(session, op, new_row, file, path, prefix, events)
                    .await
            }
            Op::Reopen => {
                if status == Status::Launched {
                    return Err(draft_error(draft::launched_refusal(
                        &row.slug,
                        row.ask_id.as_deref(),
                    )));
                }
                if matches!(status, Status::Discarded | Status::Answered) {
                    file.status = Status::Building;
                } else {
                    file.status = status;
                }
                file.ask_id = row.ask_id.clone();
                file.session = row.session_id.clone();
                file.updated_at = now;
                if let Some(g) = grounding {
                    file.grounding = g;
                }
                let new_row = row_of(&row, &file);
                self.commit(session, op, new_row, file, path, prefix, events)
                    .await
            }
            Op::Discard => {
                if status == Status::Launched {
                    return Err(draft_error(draft::launched_refusal(
                        &row.slug,
                        row.ask_id.as_deref(),
                    )));
                }
                let result = json!({"op": "discard", "slug": row.slug, "status": "discarded", "active": false});
                if status == Status::Discarded {
                    return Ok(result);
                }
                file.status = Status::Discarded;
                file.ask_id = row.ask_id.clone();
                file.session = row.session_id.clone();
                file.updated_at = now;
                write_file(&path, &file)
                    .await
                    .map_err(|e| file_failure(prefix, &path, e))?;
                let new_row = row_of(&row, &file);
                let event = self
                    .d
                    .store
                    .save_draft(DraftSave {
                        event: Some(event_payload(&new_row)),
                        draft: new_row,
                        active: ActivePointer::ClearAll,
                        expect: None,
                    })
                    .await
                    .map_err(|e| store_failure(prefix, e))?;
                events.extend(event);
                Ok(result)
            }
            // Begin never reaches here (it has no draft to load yet).
            Op::Begin => Err(refuse(
                codes::BAD_OP,
                "survey_draft_set begin takes no slug",
            )),
        }
    }

    /// `survey_draft_get` (§10.5) for `session_id`: the checklist of the named or active
    /// draft (an explicit slug also finds discarded drafts).
    pub async fn get(&self, session_id: &str, args: &Value) -> ApiResult<Value> {
        let session = self.session(session_id).await?;
        let empty = Map::new();
        let args = args.as_object().unwrap_or(&empty);
        let explicit = draft::parse_slug(args).map_err(draft_error)?;
        let prefix = "survey_draft_get failed";
        let slug = self.resolve_slug(&session, explicit, prefix).await?;
        let _guard = self
            .d
            .locks
            .draft(self.d.store.as_ref(), &slug)
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let mut events = Vec::new();
        let loaded = self.open(&session, &slug, prefix, &mut events).await;
        let result = match loaded {
            Ok(loaded) => {
                // A hand edit changes the progress: the manifest (and the UI) follow.
                let mut fresh = row_of(&loaded.row, &loaded.file);
                fresh.status = loaded.row.status.clone();
                fresh.ask_id = loaded.row.ask_id.clone();
                fresh.session_id = loaded.row.session_id.clone();
                fresh.updated_at = loaded.row.updated_at.clone();
                fresh.created_at = loaded.row.created_at.clone();
                if fresh != loaded.row
                    && let Ok(e) = self
                        .d
                        .store
                        .save_draft(DraftSave {
                            event: Some(event_payload(&fresh)),
                            draft: fresh.clone(),
                            active: ActivePointer::Keep,
                            expect: Some((loaded.row.status.clone(), loaded.row.ask_id.clone())),
                        })
                        .await
                {
                    events.extend(e);
                }
                let active = self.is_active(&session, &slug).await;
                Ok(get_result(&loaded.row, &loaded.file, active))
            }
            Err(e) => Err(e),
        };
        self.d.hub.publish(events);
        result
    }

    /// `survey_draft_launch` (§10.6) for `session_id`, up to the ask to wait on.
    pub async fn launch(&self, session_id: &str, args: &Value) -> ApiResult<DraftLaunched> {
        let session = self.session(session_id).await?;
        let empty = Map::new();
        let args = args.as_object().unwrap_or(&empty);
        let explicit = draft::parse_slug(args).map_err(draft_error)?;
        let prefix = "survey_draft_launch failed";
        let slug = self.resolve_slug(&session, explicit, prefix).await?;
        let _guard = self
            .d
            .locks
            .draft(self.d.store.as_ref(), &slug)
            .await
            .map_err(|e| store_failure(prefix, e))?;
        let mut events = Vec::new();
        let result = self
            .launch_locked(&session, &slug, prefix, &mut events)
            .await;
        self.d.hub.publish(events);
        result
    }

    async fn launch_locked(
        &self,
        session: &Session,
        slug: &str,
        prefix: &str,
        events: &mut Vec<Event>,
    ) -> ApiResult<DraftLaunched> {
        let Loaded {
            row,
            mut file,
            path,
        } = self.open(session, slug, prefix, events).await?;
        let status = status_of(&row);
        let pending = match (&row.ask_id, status) {
            (Some(a), Status::Launched) => self
                .d
                .load(a)
                .await
                .is_ok_and(|ask| ask.state == AskState::Pending),
            _ => false,
        };
        let state = draft::launch_state(status, slug, row.ask_id.as_deref(), pending)
            .map_err(draft_error)?;
        if let (LaunchState::Attach, Some(ask_id)) = (&state, &row.ask_id) {
            return Ok(DraftLaunched {
                url: self.d.ask_url(ask_id),
                ask_id: ask_id.clone(),
                created: false,
                slug: slug.to_string(),
            });
        }
        draft::launch_gate(&file.survey, file.grounding).map_err(draft_error)?;
        // A relaunch after a cancel or abort carries the banked answers over (§9.4).
        let mut replaces = None;
        if let Some(old) = &row.ask_id
            && let Ok(ask) = self.d.load(old).await
            && ask.session_id == session.id
            && ask.state == AskState::Settled
        {
            replaces = Some(old.clone());
        }
        let args = json!({"survey": file.survey});
        let req = super::CreateAsk {
            kind: askd_core::AskKind::Survey.as_str(),
            session_id: Some(&session.id),
            args: Json::from_value(&args),
            replaces: replaces.as_deref(),
            return_undelivered: false,
        };
        let new = super::Room::admit(&super::survey::Survey, self.d, &session.id, &req).await?;
        let now = askd_store::now();
        file.status = Status::Launched;
        file.updated_at = now;
        file.session = row.session_id.clone();
        let mut launched = row_of(&row, &file);
        launched.status = Status::Launched.as_str().into();
        let created = self
            .d
            .store
            .launch_draft(new, launched.clone(), event_payload(&launched))
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        events.extend(created.events);
        file.ask_id = Some(created.ask.id.clone());
        if let Err(e) = write_file(&path, &file).await {
            tracing::warn!(slug, error = %e, "cannot write the launched draft file");
        }
        Ok(DraftLaunched {
            url: self.d.ask_url(&created.ask.id),
            ask_id: created.ask.id,
            created: created.created,
            slug: slug.to_string(),
        })
    }

    /// The manifest in its export form (§10.2), of one session when given.
    pub async fn manifest(&self, session: Option<&str>) -> ApiResult<Value> {
        let drafts = self
            .d
            .store
            .drafts(session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let active = self
            .d
            .store
            .active_drafts()
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let mut by_session = Map::new();
        for (s, slug) in active {
            if session.is_none_or(|want| want == s) {
                by_session.insert(s, json!(slug));
            }
        }
        let mut out = Map::new();
        for d in drafts {
            out.insert(
                d.slug.clone(),
                json!({
                    "status": d.status,
                    "title": d.title,
                    "session": d.session_id,
                    "file": d.file,
                    "workspace": d.workspace,
                    "createdAt": d.created_at,
                    "updatedAt": d.updated_at,
                    "revision": d.revision,
                    "ready": d.ready,
                    "progress": progress_json(&d.progress),
                    "grounding": d.grounding,
                    "askId": d.ask_id,
                }),
            );
        }
        Ok(json!({"v": 1, "activeBySession": by_session, "drafts": out}))
    }
}

/// The result of begin, patch, structure and reopen (§10.4).
fn set_result(op: Op, row: &Draft, file: &DraftFile, active: bool) -> Value {
    let c = draft::completeness(&file.survey);
    let g = draft::grounding(&file.survey, file.grounding);
    json!({
        "op": op.as_str(),
        "slug": row.slug,
        "title": row.title,
        "status": row.status,
        "revision": row.revision,
        "grounding": {"mode": g.mode, "ready": g.ready},
        "active": active,
        "file": reported_file(row),
        "completeness": c,
    })
}

/// The result of `survey_draft_get` (§10.5).
fn get_result(row: &Draft, file: &DraftFile, active: bool) -> Value {
    let c = draft::completeness(&file.survey);
    let g = draft::grounding(&file.survey, file.grounding);
    let (ok, errors) = draft::validation(&file.survey);
    let mut v = json!({
        "slug": row.slug,
        "title": file.display_title(),
        "status": row.status,
        "revision": file.revision,
        "active": active,
        "file": reported_file(row),
        "updatedAt": row.updated_at,
    });
    if let Some(a) = &row.ask_id {
        v["askId"] = json!(a);
    }
    v["completeness"] = json!(c);
    v["grounding"] = json!(g);
    v["validation"] = json!({"ok": ok, "errors": errors});
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_files_are_workspace_relative() {
        let mut row = Draft {
            slug: "s".into(),
            session_id: "x".into(),
            title: "T".into(),
            status: "building".into(),
            file: "/w/.askd/survey-drafts/s.json".into(),
            workspace: Some("/w".into()),
            created_at: String::new(),
            updated_at: String::new(),
            revision: 0,
            ready: false,
            progress: DraftProgress::default(),
            grounding: "standard".into(),
            ask_id: None,
        };
        assert_eq!(reported_file(&row), ".askd/survey-drafts/s.json");
        row.workspace = None;
        assert_eq!(reported_file(&row), "/w/.askd/survey-drafts/s.json");
        row.status = "discarded".into();
        assert_eq!(
            keys(&event_payload(&row)),
            ["session", "slug", "status", "updatedAt"]
        );
    }

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn file_params_stay_inside_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = ws.path().to_str().unwrap();
        std::fs::write(
            ws.path().join("p.json"),
            r#"{"op": "patch", "intro": "file"}"#,
        )
        .unwrap();
        std::fs::write(outside.path().join("o.json"), r#"{"op": "patch"}"#).unwrap();
        let merged = with_file(
            &json!({"file": "p.json", "intro": "inline"}),
            Some(root),
            1 << 20,
        )
        .unwrap();
        assert_eq!(merged.get("intro"), Some(&json!("inline")), "inline wins");
        assert_eq!(merged.get("op"), Some(&json!("patch")));
        assert!(!merged.contains_key("file"));
        let err = |args: Value, ws: Option<&str>| with_file(&args, ws, 1 << 20).unwrap_err();
        let e = err(json!({"file": "p.json"}), None);
        assert_eq!(e.code, codes::BAD_FILE);
        assert_eq!(
            e.message,
            "survey_draft_set file= needs a session workspace — send the payload inline instead"
        );
        let escape = format!(
            "../{}/o.json",
            outside.path().file_name().unwrap().to_str().unwrap()
        );
        let e = err(json!({"file": escape}), Some(root));
        assert!(
            e.message.contains("must live inside the workspace"),
            "{}",
            e.message
        );
        let abs = outside.path().join("o.json");
        let e = err(json!({"file": abs.to_str().unwrap()}), Some(root));
        assert!(
            e.message.contains("must live inside the workspace"),
            "{}",
            e.message
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), ws.path().join("link")).unwrap();
            let e = err(json!({"file": "link/o.json"}), Some(root));
            assert!(
                e.message.contains("must live inside the workspace"),
                "{}",
                e.message
            );
        }
        let e = err(json!({"file": "missing.json"}), Some(root));
        assert!(
            e.message.contains("could not be read (resolved: "),
            "{}",
            e.message
        );
        std::fs::write(ws.path().join("bad.json"), "{").unwrap();
        let e = err(json!({"file": "bad.json"}), Some(root));
        assert!(
            e.message
                .starts_with("survey_draft_set file \"bad.json\" is not valid JSON: "),
            "{}",
            e.message
        );
        std::fs::write(ws.path().join("arr.json"), "[]").unwrap();
        let e = err(json!({"file": "arr.json"}), Some(root));
        assert_eq!(
            e.message,
            "survey_draft_set file \"arr.json\" must carry a JSON object"
        );
    }
}
