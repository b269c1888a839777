//! Quire's content model, free of I/O.
//!
//! A revision's pages form a tree. Storage keeps it as content-addressed
//! objects (see `quire-store`); this crate works on the flat form
//! ([`tree::FlatTree`]: every page with its parent and place), which is what
//! three-way merges ([`merge`]) compare, and reads markdown ([`markdown`]).
//! A page's content is a typed [`document::Document`], read from and written
//! as GitBook-flavoured markdown and the official JSON document
//! ([`document`]).

pub mod document;
pub mod markdown;
pub mod merge;
pub mod objects;
pub mod tree;
