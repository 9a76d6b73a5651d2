//! The run driver's entry for both engines: [`request`], the one function the command line and
//! the Python module call to run a file. It is the top of the module graph: nothing imports it.

pub mod request;
