//! askd's vocabulary: every word that names a kind of ask, an outcome, an event, a review
//! verdict or an alignment operation, as a type. Each is stored and sent as exactly the
//! string it always was (serde and [`Word::as_str`] use the same table), so the wire
//! formats and the stored rows stay byte-identical; everywhere else in the code the words
//! are these types, and the tidy test keeps their string literals in this module.

pub mod draft;
pub mod drift;
pub mod event;
pub mod kind;
pub mod op;
pub mod outcome;
pub mod verdict;

pub use actor::Actor;
pub use event::EventKind;
pub use kind::AskKind;
pub use op::AlignOp;
pub use outcome::Outcome;

/// A word of the vocabulary: a closed set of names, each with its one stored spelling.
pub trait Word: Sized + Copy + 'static {
    /// Every word, in a fixed order.
    const ALL: &'static [Self];
    /// The stored and sent spelling.
    fn as_str(self) -> &'static str;
    /// The word spelled `s` exactly, if there is one.
    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|w| w.as_str() == s)
    }
    /// Every spelling, in order, joined with ", " (for messages that name the legal values).
    fn listed() -> String {
        Self::ALL
            .iter()
            .map(|w| w.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Defines a [`Word`] enum: `Variant => "spelling"`, with `Display`, `Serialize` and
/// `Deserialize` through the same spellings.
macro_rules! words {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $s:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $crate::vocab::Word for $name {
            const ALL: &'static [Self] = &[$($name::$variant,)+];
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        impl $name {
            /// The stored and sent spelling.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $s,)+
                }
            }
            /// The word spelled `s` exactly, if there is one.
            pub fn parse(s: &str) -> Option<Self> {
                <Self as $crate::vocab::Word>::parse(s)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                Self::parse(&s).ok_or_else(|| {
                    ::serde::de::Error::custom(format!(
                        "{:?} is not one of {}",
                        s,
                        <Self as $crate::vocab::Word>::listed()
                    ))
                })
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.as_str()
            }
        }

        impl From<$name> for String {
            fn from(w: $name) -> String {
                w.as_str().to_string()
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                self.as_str() == other.as_str()
            }
        }
    };
}
pub(crate) use words;

/// Who did something, as events and records say it.
pub mod actor {
    super::words! {
        /// The actor of an event: the agent, the human or askd itself.
        pub enum Actor {
            Agent => "agent",
            Human => "human",
            Askd => "askd",
        }
    }
}
