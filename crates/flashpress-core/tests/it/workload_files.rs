//! (workload file tests arrive with the parsers)
