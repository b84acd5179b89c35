//! Reading a session's state: the checkpointed fold, batch by batch, its windows of
//! settled decisions (paging), the repeat hint's lookups and the session log.

use super::*;

/// A read that folded at least this many of a session's events past its checkpoint saves a
/// new one, so no read folds more than about this many.
pub(super) const CHECKPOINT_AFTER: usize = 32;
/// A fold reads a session's events this many at a time.
pub(super) const FOLD_BATCH: usize = 2_000;
/// At most this many checkpoints are being saved in the background at once.
pub const BACKGROUND_SAVES: usize = 2;

/// The checkpoint of `state` after event `last_seq`, and its decisions after the first
/// `held` (kept already), as the store keeps them.
pub(super) fn checkpoint_of(
    state: &AlignmentState,
    held: usize,
    last_seq: i64,
) -> (AlignmentCheckpoint, Vec<CheckpointDecision>) {
    let cp = Checkpoint::of(state, held);
    let decisions = state
        .settled
        .iter()
        .enumerate()
        .map(|(i, d)| CheckpointDecision {
            idx: (held + i) as u64,
            key: askd_core::alignment::normalize_question(&d.question),
            ask_id: d.ask_id.clone(),
            decision: serde_json::to_value(d).unwrap_or(Value::Null),
        })
        .collect();
    let saved = AlignmentCheckpoint {
        last_seq,
        decisions: cp.settled as u64,
        state: serde_json::to_value(&cp).unwrap_or(Value::Null),
    };
    (saved, decisions)
}

/// A session's state folded on from its checkpoint: `state.settled` holds only the decisions
/// after the first `held`, which stay in the store (beside the checkpoint) unless a reader
/// needs them.
pub(super) struct Head {
    pub(super) state: AlignmentState,
    pub(super) held: usize,
}

impl Head {
    /// How many decisions the session has settled.
    pub(super) fn total(&self) -> usize {
        self.held + self.state.settled.len()
    }
}

/// Which of a session's settled decisions a status lists: the `limit` before index `before`
/// (`None`: the newest). A cursor, so a long session is read a page at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub before: Option<usize>,
    pub limit: usize,
}

impl Default for Page {
    fn default() -> Self {
        Page::STATUS
    }
}

impl Page {
    /// What an agent's status lists before the MCP layer bounds it by size.
    pub const STATUS: Page = Page {
        before: None,
        limit: askd_core::alignment::status::DECISIONS_PER_PAGE,
    };
    /// The most a caller may ask for at once.
    pub const MAX_LIMIT: usize = 500;
}

/// A session's state with windows of its settled decisions instead of all of them (issue
/// 16): what a status, the session page and a check read, at the cost of a page whatever
/// the session's length.
#[derive(Debug, Clone, PartialEq)]
pub struct Windowed {
    /// The state; its `settled` holds only the newest [`T3_MAX_LINES`] decisions (the tail's).
    pub state: AlignmentState,
    /// How many decisions the session has settled.
    pub total: usize,
    /// The listed page: decisions `[from, from + page.len())` of the session's.
    pub from: usize,
    pub page: Vec<SettledDecision>,
}

impl Windowed {
    /// A fully folded state (every decision in `settled`) seen through `page`.
    pub fn of_whole(mut state: AlignmentState, page: Page) -> Windowed {
        let total = state.settled.len();
        let end = page.before.unwrap_or(total).min(total);
        let from = end.saturating_sub(page.limit);
        let listed = state.settled[from..end].to_vec();
        state.settled.drain(..total.saturating_sub(T3_MAX_LINES));
        Windowed {
            state,
            total,
            from,
            page: listed,
        }
    }

    /// The decisions before the state's `settled` (not loaded).
    pub fn earlier(&self) -> usize {
        self.total - self.state.settled.len()
    }

    /// `settled_decisions_page`: where the listed page sits among the session's decisions.
    pub fn page_view(&self) -> Value {
        let to = self.from + self.page.len();
        json!({
            "total": self.total,
            "from": self.from,
            "to": to,
            "before": (self.from > 0).then_some(self.from),
        })
    }
}

impl Alignment<'_> {
    /// The session's events as the fold reads them, oldest first.
    pub async fn session_events(&self, session: &str) -> ApiResult<Vec<AlignEvent>> {
        let events = self
            .store
            .session_events(session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        Ok(self.align_events(events).await.0)
    }

    /// Store events as the fold reads them: the alignment-relevant ones, `ask.created`
    /// enriched with the ask's tool and questions. `false` when an ask could not be read.
    pub(super) async fn align_events(
        &self,
        events: Vec<askd_store::Event>,
    ) -> (Vec<AlignEvent>, bool) {
        fn created_or_settled(e: &askd_store::Event) -> Option<&str> {
            if e.kind != EventKind::AskCreated && e.kind != EventKind::AskSettled {
                return None;
            }
            e.payload.get("ask_id").and_then(Value::as_str)
        }
        let ids: Vec<&str> = events.iter().filter_map(created_or_settled).collect();
        let (infos, complete) = match ask_infos(self.store, self.asks, ids).await {
            Ok(infos) => (infos, true),
            Err(_) => (HashMap::new(), false),
        };
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            let mut data = e.payload;
            let info = data
                .get("ask_id")
                .and_then(Value::as_str)
                .and_then(|id| infos.get(id))
                .cloned();
            // An ask's tool and questions travel with its settle, not its creation: the fold
            // keeps nothing of a pending ask, so a session's state does not grow with them.
            match (e.kind == EventKind::AskCreated, info) {
                (true, Some(info)) => {
                    data["tool"] = json!(info.0);
                    data["questions_with_settle"] = json!(true);
                }
                (false, Some(info)) if e.kind == EventKind::AskSettled => {
                    data["tool"] = json!(info.0);
                    data["questions"] = info.1.clone().unwrap_or_else(|| json!([]));
                }
                _ => {}
            }
            out.extend(AlignEvent::from_stored(e.seq, e.created_at, &e.kind, data));
        }
        (out, complete)
    }

    /// The session's state from its checkpoint and the events after it (see [`Head`]), read
    /// [`FOLD_BATCH`] events at a time. A long fold keeps what it folded after each full batch
    /// (a checkpoint saved before going on, whose decisions then leave memory), so a session
    /// never checkpointed before costs memory of a batch, not of its history; a fold of
    /// [`CHECKPOINT_AFTER`] events or more saves a checkpoint at its end, in the background
    /// when the daemon can (at most [`BACKGROUND_SAVES`] at once; a read that finds them busy
    /// leaves the save to a later read).
    pub(super) async fn head(&self, session: &str) -> ApiResult<Head> {
        let store = self.store;
        let store_err = |e| ApiError::store(e, "-");
        let stored = store
            .alignment_checkpoint(session)
            .await
            .map_err(store_err)?;
        let resumed = stored.and_then(|c| {
            let cp: Checkpoint = serde_json::from_value(c.state).ok()?;
            let (state, held) = cp.resume()?;
            (held as u64 == c.decisions).then_some((state, held, c.last_seq))
        });
        let (mut state, mut held, mut after) =
            resumed.unwrap_or_else(|| (AlignmentState::default(), 0, 0));
        let (mut unsaved, mut complete) = (0, true);
        loop {
            let raw = store
                .session_events_after(session, after, self.fold_batch as u32)
                .await
                .map_err(store_err)?;
            let Some(last) = raw.last().map(|e| e.seq) else {
                break;
            };
            let full = raw.len() == self.fold_batch;
            unsaved += raw.len();
            let (events, batch_complete) = self.align_events(raw).await;
            complete &= batch_complete;
            for e in &events {
                state.apply(e);
            }
            after = last;
            if !full {
                break;
            }
            if complete {
                let (saved, decisions) = checkpoint_of(&state, held, last);
                if store
                    .save_alignment_checkpoint(session, &saved, &decisions)
                    .await
                    .unwrap_or(false)
                {
                    held += state.settled.len();
                    state.settled.clear();
                    unsaved = 0;
                }
            }
        }
        if unsaved >= CHECKPOINT_AFTER && complete {
            let (saved, decisions) = checkpoint_of(&state, held, after);
            // Derived data: a failed save only means more events to fold next time, and a
            // save that loses a race to a later one is refused by the store.
            match self.shared {
                Some((shared, saves)) => {
                    if let Ok(permit) = saves.clone().try_acquire_owned() {
                        let (store, session) = (shared.clone(), session.to_string());
                        tokio::spawn(async move {
                            let _ = store
                                .save_alignment_checkpoint(&session, &saved, &decisions)
                                .await;
                            drop(permit);
                        });
                    }
                }
                None => {
                    let _ = store
                        .save_alignment_checkpoint(session, &saved, &decisions)
                        .await;
                }
            }
        }
        Ok(Head { state, held })
    }

    /// The first decision settled in the session for this normalised question by an ask
    /// other than `not_ask`: looked up by key among the kept decisions, then among the few
    /// after the checkpoint, so the cost does not grow with the session.
    pub(super) async fn first_with_key(
        &self,
        session: &str,
        head: &Head,
        key: &str,
        not_ask: &str,
    ) -> ApiResult<Option<SettledDecision>> {
        let kept = if head.held > 0 {
            self.store
                .alignment_decision(session, key, not_ask, head.held as u64)
                .await
                .map_err(|e| ApiError::store(e, "-"))?
                .and_then(|v| serde_json::from_value::<SettledDecision>(v).ok())
        } else {
            None
        };
        Ok(kept.or_else(|| {
            head.state
                .settled
                .iter()
                .find(|d| {
                    d.ask_id != not_ask
                        && askd_core::alignment::normalize_question(&d.question) == key
                })
                .cloned()
        }))
    }

    /// The "asked earlier" notices of a question ask's page (`alignment.md` §5.7): for each of
    /// its questions that repeats a decision already settled in the session by another ask,
    /// `{question_id: {ask_id, chosen, custom}}`. Empty in `off` mode (the card notice shows in
    /// `auto` and `manual`).
    pub async fn repeats(&self, ask: &askd_store::Ask, configured: Mode) -> ApiResult<Value> {
        let Some(questions) = payload_questions(&ask.payload) else {
            return Ok(json!({}));
        };
        let head = self.head(&ask.session_id).await?;
        if head.state.effective_mode(Some(configured)).0 == Mode::Off {
            return Ok(json!({}));
        }
        let mut out = serde_json::Map::new();
        for q in questions.as_array().into_iter().flatten() {
            let (Some(id), Some(text)) = (q["id"].as_str(), q["question"].as_str()) else {
                continue;
            };
            let key = askd_core::alignment::normalize_question(text);
            if key.is_empty() {
                continue;
            }
            if let Some(d) = self
                .first_with_key(&ask.session_id, &head, &key, &ask.id)
                .await?
            {
                out.insert(
                    id.to_string(),
                    json!({"ask_id": d.ask_id, "chosen": d.chosen, "custom": d.custom}),
                );
            }
        }
        Ok(Value::Object(out))
    }

    /// `repeat_of` of a question result (§5.7): the first settled decision, by an ask other
    /// than `not_ask`, of the first of `questions` that repeats one; `null` when none does.
    pub(super) async fn repeat_of(
        &self,
        session: &str,
        head: &Head,
        questions: &[String],
        not_ask: &str,
    ) -> ApiResult<Value> {
        for q in questions {
            let key = askd_core::alignment::normalize_question(q);
            if key.is_empty() {
                continue;
            }
            if let Some(d) = self.first_with_key(session, head, &key, not_ask).await? {
                return Ok(
                    json!({"ask_id": d.ask_id, "question_id": d.question_id, "chosen": d.chosen}),
                );
            }
        }
        Ok(Value::Null)
    }

    /// Decisions `[from, to)` of the session: the kept ones from the store (one page), the
    /// later ones from the head. `None` when the store's kept decisions do not match their
    /// checkpoint (then only a fold from the start is right).
    pub(super) async fn decisions(
        &self,
        session: &str,
        head: &Head,
        from: usize,
        to: usize,
    ) -> ApiResult<Option<Vec<SettledDecision>>> {
        let mut out = Vec::new();
        let kept_to = to.min(head.held);
        if from < kept_to {
            let kept = self
                .store
                .alignment_decisions(session, from as u64, kept_to as u64)
                .await
                .map_err(|e| ApiError::store(e, "-"))?;
            out.extend(
                kept.into_iter()
                    .filter_map(|v| serde_json::from_value::<SettledDecision>(v).ok()),
            );
            if out.len() != kept_to - from {
                return Ok(None);
            }
        }
        let later = &head.state.settled;
        let lo = (from.max(head.held) - head.held).min(later.len());
        let hi = to.saturating_sub(head.held).min(later.len());
        if lo < hi {
            out.extend_from_slice(&later[lo..hi]);
        }
        Ok(Some(out))
    }

    /// The session's state with the newest decisions and one `page` of them (see
    /// [`Windowed`]), from a head already read.
    pub(super) async fn window(
        &self,
        session: &str,
        head: Head,
        page: Page,
    ) -> ApiResult<Windowed> {
        let total = head.total();
        let end = page.before.unwrap_or(total).min(total);
        let from = end.saturating_sub(page.limit.min(Page::MAX_LIMIT));
        let newest_from = total.saturating_sub(T3_MAX_LINES);
        let listed = self.decisions(session, &head, from, end).await?;
        let newest = if end == total && from <= newest_from {
            listed.as_ref().map(|l| l[newest_from - from..].to_vec())
        } else {
            self.decisions(session, &head, newest_from, total).await?
        };
        let (Some(listed), Some(newest)) = (listed, newest) else {
            let whole = fold(&self.session_events(session).await?);
            return Ok(Windowed::of_whole(whole, page));
        };
        let mut state = head.state;
        state.settled = newest;
        Ok(Windowed {
            state,
            total,
            from,
            page: listed,
        })
    }

    /// The session's state with the newest decisions and one `page` of them.
    pub async fn windowed(&self, session: &str, page: Page) -> ApiResult<Windowed> {
        let head = self.head(session).await?;
        self.window(session, head, page).await
    }

    /// The session's folded state with *every* settled decision: its checkpoint, its kept
    /// decisions and the events after it (equal to the fold of all its events). Its cost
    /// grows with the session; the surfaces read [`Self::windowed`] instead.
    /// Folds `session` from its checkpoint on, which saves a new checkpoint when that was
    /// [`CHECKPOINT_AFTER`] events or more (`crate::keeper`).
    pub async fn keep(&self, session: &str) -> ApiResult<()> {
        self.head(session).await.map(|_| ())
    }

    pub async fn state(&self, session: &str) -> ApiResult<AlignmentState> {
        let Head { mut state, held } = self.head(session).await?;
        if held > 0 {
            let kept = self
                .store
                .alignment_decisions(session, 0, held as u64)
                .await
                .map_err(|e| ApiError::store(e, "-"))?;
            let mut settled: Vec<SettledDecision> = kept
                .into_iter()
                .filter_map(|v| serde_json::from_value(v).ok())
                .collect();
            if settled.len() != held {
                // The kept decisions do not match their checkpoint: fold from the start.
                return Ok(fold(&self.session_events(session).await?));
            }
            settled.append(&mut state.settled);
            state.settled = settled;
        }
        Ok(state)
    }

    /// The session's folded state without its settled decisions (`settled` is empty;
    /// `rounds` still counts the rounds): for a reader that needs none of them (a drift
    /// card), at the cost of the events after the checkpoint only.
    pub async fn state_without_decisions(&self, session: &str) -> ApiResult<AlignmentState> {
        let mut state = self.head(session).await?.state;
        state.settled.clear();
        Ok(state)
    }

    /// The session's log without its ask events (alignment and connection events), as the
    /// fold reads them: what the session page reads besides the state.
    pub async fn session_log(&self, session: &str) -> ApiResult<Vec<AlignEvent>> {
        let events = self
            .store
            .session_log(session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        Ok(self.align_events(events).await.0)
    }
}
