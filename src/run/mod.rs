//! What both engines' runs share: the output directory's contract ([`output_dir`]) and the one
//! entry for a run from a file ([`request`]), which the command line and the Python module call.

pub mod output_dir;
pub mod request;
