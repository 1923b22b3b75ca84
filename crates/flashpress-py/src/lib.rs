//! binding (being written)
