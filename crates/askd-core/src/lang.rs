//! The one language enum: askd speaks English or Simplified Chinese.
//!
//! Two ways in, because two inputs differ in how strict they are, and each keeps the
//! behaviour it always had:
//! - [`Lang::parse`] reads askd's resolved `language` setting (and the alignment tail's
//!   `lang`) leniently: any tag starting with `zh` (`zh`, `zh-CN`, `zh-Hans`…) is Chinese,
//!   anything else English.
//! - [`Lang::parse_code`] reads an agent-given `lang` argument (a review's, `review.md`
//!   §2.6) strictly: `en`, `zh-CN` or `zh`, ASCII case-insensitive; anything else is
//!   refused.
//!
//! Serialised as `en` / `zh-CN` ([`Lang::as_str`]).

use serde::{Deserialize, Serialize};

/// English or Simplified Chinese.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh-CN")]
    Zh,
}

impl Lang {
    /// `en` or `zh-CN`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// Lenient: `zh`, `zh-CN`, `zh-Hans`… (any case) → Chinese; anything else → English.
    pub fn parse(s: &str) -> Lang {
        if s.to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// Strict: `en`, `zh-CN`, or `zh` (read as `zh-CN`); ASCII case-insensitive.
    pub fn parse_code(s: &str) -> Option<Lang> {
        match s.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "zh-cn" | "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    pub fn is_zh(self) -> bool {
        self == Lang::Zh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_and_strict_parsing() {
        for zh in ["zh", "zh-CN", "ZH-hans", "zhx"] {
            assert_eq!(Lang::parse(zh), Lang::Zh, "{zh}");
        }
        for en in ["en", "", "fr", "EN-us"] {
            assert_eq!(Lang::parse(en), Lang::En, "{en}");
        }
        assert_eq!(Lang::parse_code("en"), Some(Lang::En));
        assert_eq!(Lang::parse_code("EN"), Some(Lang::En));
        assert_eq!(Lang::parse_code("zh"), Some(Lang::Zh));
        assert_eq!(Lang::parse_code("zh-cn"), Some(Lang::Zh));
        assert_eq!(Lang::parse_code("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse_code("zh-Hans"), None);
        assert_eq!(Lang::parse_code("fr"), None);
        assert_eq!(Lang::Zh.as_str(), "zh-CN");
        assert_eq!(serde_json::to_value(Lang::Zh).unwrap(), "zh-CN");
        assert_eq!(serde_json::to_value(Lang::En).unwrap(), "en");
        assert_eq!(Lang::default(), Lang::En);
    }
}
