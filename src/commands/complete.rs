//! Completion candidates that need the input: namespaces, kinds and names (placeholder).
