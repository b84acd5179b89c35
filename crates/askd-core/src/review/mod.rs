//! The `batch_review` engine (`review.md`): a checklist handed over in one call, a verdict and
//! a note per item from the human, one machine-readable result in which a blank is never a
//! pass.
//!
//! Data flows one way: raw arguments → [`validate`] (every problem with its path, then the
//! normal form [`ReviewSpec`]) → stored → answers from a surface ([`answers::validate_submit`]),
//! a draft ([`draft::sanitize`]) or a file ([`import`]) → [`fold`] (`items`, `summary`,
//! `report_text`) → the result.
//!
//! # Layout
//! - [`model`] — the normal form, limits, labels by language, the tool's input schema.
//! - [`validate`] — argument validation (§3) and normalisation (§2.5, §2.6).
//! - [`answers`] — answer validation (§3.4) shared by submit, draft and import.
//! - [`fold`] — answers → result items, summary and `report_text` (§4).
//! - [`draft`] — the autosave sanitiser for verdicts and notes.
//! - [`export`] — CSV, self-contained HTML and JSON exports (§8.1).
//! - [`import`] — filled CSV and JSON files back to answers (§8.2, §8.3).
//!
//! # Invariants
//! - Pure: no I/O, no clock, no randomness. The caller supplies caps, the `persist` check
//!   (which needs the file system) and pre-rendered Markdown.
//! - No panic on any input; agent and human input only produce [`Problem`](crate::Problem)s.

pub mod answers;
pub mod draft;
pub mod export;
pub mod fold;
pub mod import;
pub mod model;
pub mod validate;

pub use answers::ItemAnswer;
pub use fold::{FoldedItem, Summary};
pub use model::{ItemType, Lang, ReviewItem, ReviewOption, ReviewSpec, Surface};
pub use validate::{Limits, validate};
