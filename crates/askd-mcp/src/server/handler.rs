//! The rmcp `ServerHandler` of [`AskdServer`]: the tool, prompt and resource lists (which
//! follow the session's alignment mode), `subscriptions/listen`, and `call_tool`.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::AskdServer;
use super::errors::to_call_result;
use super::round::{RoundState, ToolOutcome, state_refused};
use crate::{instructions, tools};
use askd_core::alignment::{Mode, check_instruction, check_note};

impl ServerHandler for AskdServer {
    /// `subscriptions/listen` (2026-07-28): askd's tool and prompt lists follow the
    /// session's alignment mode, so a client may listen for their changes.
    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let mut accepted = rmcp::model::SubscriptionFilter::new();
        accepted.tools_list_changed = Some(true);
        accepted.prompts_list_changed = Some(true);
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let id = context.sink().id().clone();
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(context.sink().clone());
        context.cancelled().await;
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| *s.id() != id);
        Ok(())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("askd", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = tools::listed(self.current_mode().await);
        if Self::apps(&context) {
            crate::apps::decorate(&mut listed);
        }
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut skill = Prompt::new(
            instructions::SKILL_NAME,
            Some(
                "The survey authoring doctrine: the builder loop, the bar, the insight triple, the writing standard, result handling. Load it before authoring.",
            ),
            None,
        );
        skill.title = Some("Author rich questions".into());
        if self.current_mode().await == Mode::Off {
            return Ok(ListPromptsResult::with_all_items(vec![skill]));
        }
        let mut session = PromptArgument::new("session");
        session.description = Some("Continue this askd session (its id).".into());
        session.required = Some(false);
        let mut note = PromptArgument::new("note");
        note.description = Some("Your focus for the check (at most 500 characters).".into());
        note.required = Some(false);
        let mut prompt = Prompt::new(
            tools::ALIGN,
            Some(
                "Check requirements alignment: askd records the check and gives the agent its session report and the check instruction.",
            ),
            Some(vec![session, note]),
        );
        prompt.title = Some("Check alignment".into());
        Ok(ListPromptsResult::with_all_items(vec![prompt, skill]))
    }

    /// The `align` prompt (`alignment.md` §5.2): records a check (via prompt, actor human),
    /// then returns one user message: the instruction, a blank line, the report.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == instructions::SKILL_NAME {
            let text = instructions::skill(self.opts.language);
            return Ok(
                GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                    .with_description("The survey authoring doctrine")
                    .into(),
            );
        }
        if request.name != tools::ALIGN {
            return Err(ErrorData::invalid_params(
                format!(
                    "askd has no prompt named {:?}; its prompts are align and {}",
                    request.name,
                    instructions::SKILL_NAME
                ),
                None,
            ));
        }
        let args = request
            .arguments
            .map(Value::Object)
            .unwrap_or_else(|| json!({}));
        let note = args
            .get("note")
            .and_then(Value::as_str)
            .map(check_note)
            .transpose()
            .map_err(|m| ErrorData::invalid_params(m, None))?
            .flatten()
            .map(str::to_string);
        let session = self
            .alignment_session(&args, &context)
            .await
            .map_err(|e| ErrorData::invalid_params(e.message, None))?;
        let mut body = self.configured();
        body["via"] = json!("prompt");
        if let Some(n) = &note {
            body["note"] = json!(n);
        }
        let r = self
            .backend
            .alignment(&session, "check", &body)
            .await
            .map_err(|e| ErrorData::invalid_params(format!("{}: {}", e.code, e.message), None))?;
        let instruction = check_instruction(self.lang(), None);
        let mut text = format!(
            "{instruction}\n\n{}",
            r["report"].as_str().unwrap_or_default()
        );
        if let Some(n) = &note {
            text.push_str(&format!("\n\nThe human's focus for this check: {n}"));
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Requirements alignment check")
                .into(),
        )
    }

    /// The authoring skill as a resource (`survey.md` §13.1).
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let text = instructions::skill(self.opts.language);
        let skill = Resource::new(instructions::SKILL_URI, instructions::SKILL_NAME)
            .with_title("Author rich questions")
            .with_description("The survey authoring doctrine; read it before authoring.")
            .with_mime_type("text/markdown")
            .with_size(text.len() as u64);
        let mut listed = vec![skill];
        if Self::apps(&context) {
            let doc = crate::app_html::document();
            listed.push(
                Resource::new(crate::apps::RESOURCE_URI, "askd-ask")
                    .with_title("askd ask")
                    .with_description(
                        "Every askd ask (survey, questions, review, drift card) as an MCP App.",
                    )
                    .with_mime_type(crate::apps::MIME_TYPE)
                    .with_size(doc.len() as u64)
                    .with_meta(crate::apps::resource_meta()),
            );
        }
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == crate::apps::RESOURCE_URI && Self::apps(&context) {
            let contents =
                ResourceContents::text(crate::app_html::document(), crate::apps::RESOURCE_URI)
                    .with_mime_type(crate::apps::MIME_TYPE)
                    .with_meta(crate::apps::resource_meta());
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        if request.uri != instructions::SKILL_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "askd has no resource {:?}; its resource is {}",
                    request.uri,
                    instructions::SKILL_URI
                ),
                None,
            ));
        }
        let text = instructions::skill(self.opts.language);
        let contents =
            ResourceContents::text(text, instructions::SKILL_URI).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    /// The 2025-11-25 task requests a transport handed over (`crate::tasks`): a
    /// task-augmented `tools/call`, `tasks/get`, `tasks/result`, `tasks/list`,
    /// `tasks/cancel`.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let params = request.params.clone().unwrap_or_else(|| json!({}));
        match self.legacy_request(&request.method, params, &context).await {
            Some(r) => r.map(rmcp::model::CustomResult),
            None => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            )),
        }
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.modern_get(request, &context).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.modern_update(request, &context).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.modern_cancel(request, &context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request
            .arguments
            .map(Value::Object)
            .unwrap_or_else(|| json!({}));
        // A retry's requestState is askd's own, unaltered, or the retry is refused: it never
        // falls back to running the call as new, nor to waiting on whatever it names.
        let result = match request.request_state.as_deref() {
            // A 2026-07-28 client that declared tasks gets an ask tool's call as a task
            // (`super::tasks`); what needs no waiting comes back as the plain result.
            None if Self::wants_task(&request.name, &context) => {
                match self.modern_call(&request.name, args, &context).await? {
                    Ok(task) => return Ok(CallToolResponse::Task(task)),
                    Err(done) => done.map(ToolOutcome::Done),
                }
            }
            Some(sealed) => match self
                .opts
                .seal
                .open::<RoundState>(crate::seal::Purpose::RequestState, sealed)
            {
                Some(state) => {
                    self.resume(args, state, request.input_responses.as_ref(), &context)
                        .await
                }
                None => Err(state_refused("it does not verify")),
            },
            None => self.run(&request.name, args, &context).await,
        };
        let result = match result {
            Ok(ToolOutcome::InputRequired(round)) => {
                return Ok(CallToolResponse::InputRequired(round));
            }
            Ok(ToolOutcome::Done(v)) => Ok(v),
            Err(e) => Err(e),
        };
        // An MCP App host renders the app from an ask tool's result: the app gets the ask's
        // signed handle in `_meta["askd/app"]`.
        let app = (Self::apps(&context) && crate::apps::ASK_TOOLS.contains(&request.name.as_ref()))
            .then(|| self.app_meta(&result))
            .flatten();
        let mut result = to_call_result(result);
        if let Some(app) = app {
            result
                .meta
                .get_or_insert_with(Default::default)
                .insert(crate::apps::META_KEY.into(), app);
        }
        // The alignment tools' errors open with "<tool>: " (alignment.md §5.1).
        let alignment_tool = matches!(
            request.name.as_ref(),
            tools::ALIGN
                | tools::ALIGNMENT_STATUS
                | tools::SET_ALIGNMENT_MODE
                | tools::ESTABLISH_BASELINE
                | tools::REPORT_DRIFT
        );
        if alignment_tool
            && result.is_error == Some(true)
            && let Some(first) = result.content.first_mut()
            && let Some(text) = first.as_text()
            && !text.text.starts_with(&format!("{}: ", request.name))
        {
            *first = ContentBlock::text(format!("{}: {}", request.name, text.text));
        }
        Ok(result.into())
    }
}
