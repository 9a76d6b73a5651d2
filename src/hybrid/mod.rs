//! The GENGA hybrid engine: the step, its Yoshida composition and the run driver.

pub mod run;
pub mod stepper;
pub mod wisdom_holman;
pub mod yoshida;
