//! What both engines' runs share (issue 30's run driver, begun): the output directory's
//! contract, [`output_dir`].

pub mod output_dir;
