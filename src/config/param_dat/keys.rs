//! Every key GENGA's `param.dat` defines, with how Orrery treats it ([`KeyClass`]), its value's
//! kind and GENGA's default.

/// How Orrery treats a GENGA `param.dat` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyClass {
    /// Orrery reads the value and uses it.
    Supported,
    /// Accepted without physical effect in Orrery (noted when not at GENGA's default).
    Inert,
    /// Physics or a feature Orrery lacks: a warning at GENGA's default, an error otherwise.
    Unsupported,
}

/// The type of a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A floating-point number.
    Number,
    /// An integer.
    Integer,
    /// Free text (names, file names, format strings).
    Text,
}

/// One key GENGA defines, with GENGA's default value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// The canonical (GENGA) spelling of the key.
    pub name: &'static str,
    /// GENGA's default value, as text (empty when GENGA has no usable default).
    pub default: &'static str,
    /// How Orrery treats the key.
    pub class: KeyClass,
    /// The type of the value.
    pub kind: ValueKind,
    /// For unsupported keys the missing feature, for inert keys why the key has no effect.
    pub note: &'static str,
    /// Inert key that only parameterises a feature whose switch is itself an unsupported key
    /// (e.g. the aeGrid and gas-disk parameters): accepted silently whatever its value.
    pub silent: bool,
}

const fn key(
    name: &'static str,
    default: &'static str,
    class: KeyClass,
    kind: ValueKind,
    note: &'static str,
) -> KeySpec {
    KeySpec {
        name,
        default,
        class,
        kind,
        note,
        silent: false,
    }
}

/// An inert key that only matters when an unsupported feature is switched on.
const fn dependent(
    name: &'static str,
    default: &'static str,
    kind: ValueKind,
    note: &'static str,
) -> KeySpec {
    KeySpec {
        name,
        default,
        class: KeyClass::Inert,
        kind,
        note,
        silent: true,
    }
}

use KeyClass::{Inert, Supported, Unsupported};
use ValueKind::{Integer, Number, Text};

const AE_GRID: &str = "only used when `Use aeGrid = 1`, which Orrery does not implement";
const SMALL_BODY: &str = "only used by the small-body collision model, which Orrery does not \
                          implement";
const TTV: &str = "only used by the TTV/RV/MCMC modes, which Orrery does not implement";
const FORMAT: &str = "GENGA output-file layout; Orrery writes one text file per output step";
const NAF: &str = "parameters of GENGA's frequency analysis (NAF), which Orrery does not implement";

/// Every key GENGA's `param.dat` defines, with GENGA's default and Orrery's treatment.
pub const GENGA_KEYS: &[KeySpec] = &[
    // Run control.
    key("Time step in days", "6", Supported, Number, ""),
    key("Output name", "test", Supported, Text, ""),
    key("Energy output interval", "100", Supported, Integer, ""),
    key("Coordinates output interval", "100", Supported, Integer, ""),
    key(
        "Number of outputs per interval",
        "1",
        Supported,
        Integer,
        "",
    ),
    key(
        "Coordinate output buffer",
        "1",
        Inert,
        Integer,
        "a GPU output buffer size",
    ),
    key(
        "Irregular output calendar",
        "-",
        Unsupported,
        Text,
        "irregular output calendars",
    ),
    key("Integration steps", "1000", Supported, Integer, ""),
    // Input / output.
    key("Input file", "", Supported, Text, ""),
    key(
        "Input file Format",
        "<< x y z m vx vy vz >>",
        Supported,
        Text,
        "",
    ),
    key(
        "Output file Format",
        "<< t i m r x y z vx vy vz Sx Sy Sz amin amax emin emax aec aecT encc test >>",
        Inert,
        Text,
        "Orrery always writes the columns t i m r x y z vx vy vz Sx Sy Sz",
    ),
    key(
        "Use output binary files",
        "0",
        Unsupported,
        Integer,
        "binary output files",
    ),
    key("Angle units", "radians", Supported, Text, ""),
    key("Default rho", "2.0", Supported, Number, ""),
    key("Restart timestep", "0", Supported, Integer, ""),
    // Star.
    key("Central Mass", "1.0", Supported, Number, ""),
    key("Star Radius", "0.00465475877", Supported, Number, ""),
    key("Star Love Number", "1.0", Supported, Number, ""),
    key("Star fluid Love Number", "1.0", Supported, Number, ""),
    key("Star tau", "0", Supported, Number, ""),
    // The star's spin gives J2's axis and the tides' initial spin of the central body.
    key("Star spin_x", "0", Supported, Number, ""),
    key("Star spin_y", "0", Supported, Number, ""),
    key("Star spin_z", "0", Supported, Number, ""),
    key("Star Ic", "0.4", Supported, Number, ""),
    key("J2", "0", Supported, Number, ""),
    key("J2 radius", "0", Supported, Number, ""),
    // Integrator.
    key("n1", "3.0", Supported, Number, ""),
    key("n2", "0.4", Supported, Number, ""),
    // An Orrery extension that GENGA does not read (GENGA always uses its eq. 4).
    key("Changeover function", "genga", Supported, Text, ""),
    key("Use Test Particles", "0", Supported, Integer, ""),
    key("Particle Minimum Mass", "0", Supported, Number, ""),
    key("Symplectic recursion levels", "1", Supported, Integer, ""),
    key(
        "Symplectic recursion sub steps",
        "2",
        Supported,
        Integer,
        "",
    ),
    key("Minimum number of bodies", "0", Supported, Integer, ""),
    key(
        "Minimum number of test particles",
        "0",
        Supported,
        Integer,
        "",
    ),
    key("Inner truncation radius", "0.2", Supported, Number, ""),
    key("Outer truncation radius", "50", Supported, Number, ""),
    key("Order of integrator", "2", Supported, Integer, ""),
    // Orrery extensions that GENGA does not read: the Wisdom-Holman map for stability ensembles.
    key("Integrator", "hybrid", Supported, Text, ""),
    key("WH correctors", "0", Supported, Integer, ""),
    key(
        "Maximum encounter pairs",
        "512",
        Inert,
        Integer,
        "a GPU memory size; Orrery sizes its lists itself",
    ),
    key(
        "Nfragments",
        "0",
        Unsupported,
        Integer,
        "collisional fragments",
    ),
    // a-e grid.
    key(
        "Use aeGrid",
        "0",
        Unsupported,
        Integer,
        "the a-e / a-i grids",
    ),
    dependent("aeGrid amin", "0", Number, AE_GRID),
    dependent("aeGrid amax", "5", Number, AE_GRID),
    dependent("aeGrid emin", "0", Number, AE_GRID),
    dependent("aeGrid emax", "1", Number, AE_GRID),
    dependent("aeGrid imin", "0", Number, AE_GRID),
    dependent("aeGrid imax", "0.1", Number, AE_GRID),
    dependent("aeGrid Na", "10", Integer, AE_GRID),
    dependent("aeGrid Ne", "10", Integer, AE_GRID),
    dependent("aeGrid Ni", "10", Integer, AE_GRID),
    dependent("aeGrid Start Count", "0", Integer, AE_GRID),
    dependent("aeGrid name", "A", Text, AE_GRID),
    // Gas disk.
    key("Use gas disk", "0", Supported, Integer, ""),
    key("Use gas disk potential", "1", Supported, Integer, ""),
    key("Use gas disk enhancement", "0", Supported, Integer, ""),
    key("Use gas disk drag", "2", Supported, Integer, ""),
    key("Use gas disk tidal damping", "2", Supported, Integer, ""),
    key("Use gas disk tidal dampening", "2", Supported, Integer, ""),
    key("Gas disk inner edge", "0.1", Supported, Number, ""),
    key("Gas disk outer edge", "35", Supported, Number, ""),
    key("Gas disk grid outer edge", "15", Supported, Number, ""),
    key("Gas disk grid dr", "0.1", Supported, Number, ""),
    key("Gas dTau_diss", "10000", Supported, Number, ""),
    key("Gas Sigma_10", "2000", Supported, Number, ""),
    key("Gas alpha", "1", Supported, Number, ""),
    key("Gas beta", "0.25", Supported, Number, ""),
    key("Gas Mgiant", "1.0E-4", Supported, Number, ""),
    key("Gas file name", "-", Supported, Text, ""),
    // Extra forces.
    key("Solar Constant", "1367", Supported, Number, ""),
    key("Use GR", "0", Supported, Integer, ""),
    key("Use Tides", "0", Supported, Integer, ""),
    key("Use Rotational Deformation", "0", Supported, Integer, ""),
    key(
        "Use force",
        "0",
        Unsupported,
        Integer,
        "GR, tidal or rotational-deformation forces",
    ),
    key("Use Yarkovsky", "0", Supported, Integer, ""),
    key(
        "Use Migration Force",
        "0",
        Unsupported,
        Integer,
        "GENGA's artificial migration force",
    ),
    key("Use Poynting-Robertson", "0", Supported, Integer, ""),
    key(
        "Radiation Pressure Coefficient Qpr",
        "1",
        Supported,
        Number,
        "",
    ),
    key("Solar Wind factor", "0", Supported, Number, ""),
    // Small bodies.
    key("Asteroid emissivity eps", "0.95", Supported, Number, ""),
    key("Asteroid density rho", "3500", Supported, Number, ""),
    key(
        "Asteroid specific heat capacity C",
        "680",
        Supported,
        Number,
        "",
    ),
    key("Asteroid albedo A", "0.2", Supported, Number, ""),
    key(
        "Asteroid thermal conductivity K",
        "2.65",
        Supported,
        Number,
        "",
    ),
    dependent(
        "Asteroid collisional velocity V",
        "5000",
        Number,
        SMALL_BODY,
    ),
    dependent(
        "Asteroid minimal fragment radius",
        "0.01",
        Number,
        SMALL_BODY,
    ),
    dependent(
        "Asteroid fragment remove radius",
        "0.01",
        Number,
        SMALL_BODY,
    ),
    key(
        "Use Small Collisions",
        "0",
        Unsupported,
        Integer,
        "the small-body collision model",
    ),
    key(
        "Create Particles file name",
        "-",
        Unsupported,
        Text,
        "particle creation during a run",
    ),
    // Encounters and collisions.
    key(
        "Report Encounters",
        "0",
        Unsupported,
        Integer,
        "encounter reports",
    ),
    dependent(
        "Report Encounters Radius",
        "1",
        Number,
        "only used with `Report Encounters`, which Orrery does not implement",
    ),
    dependent(
        "Report Encounters Cloud Size",
        "1",
        Integer,
        "only used with `Report Encounters`, which Orrery does not implement",
    ),
    key("Stop at Encounter", "0", Supported, Integer, ""),
    key("Stop at Encounter Radius", "1", Supported, Number, ""),
    key("Collision Precision", "1.0E-4", Supported, Number, ""),
    key("Collision Time Shift", "1", Supported, Number, ""),
    key("Stop at Collision", "0", Supported, Integer, ""),
    key("Stop Minimum Mass", "0", Supported, Number, ""),
    key(
        "Collision Model",
        "0",
        Unsupported,
        Integer,
        "collision models other than perfect merging",
    ),
    // Other.
    key(
        "Set Elements file name",
        "-",
        Unsupported,
        Text,
        "set-elements tables",
    ),
    key("FormatS", "0", Inert, Integer, FORMAT),
    key("FormatT", "0", Inert, Integer, FORMAT),
    key("FormatP", "1", Inert, Integer, FORMAT),
    key("FormatO", "0", Inert, Integer, FORMAT),
    key(
        "Serial Grouping",
        "0",
        Inert,
        Integer,
        "Orrery's sums are always in a fixed order (bitwise reproducible)",
    ),
    key(
        "Do kernel tuning",
        "1",
        Inert,
        Integer,
        "GPU kernel tuning; Orrery does not tune kernels",
    ),
    key(
        "Do Kick in single precision",
        "0",
        Unsupported,
        Integer,
        "single-precision kicks",
    ),
    key(
        "TTV file name",
        "-",
        Unsupported,
        Text,
        "transit-timing variations",
    ),
    key(
        "RV file name",
        "-",
        Unsupported,
        Text,
        "radial-velocity fitting",
    ),
    dependent("TTV steps", "1", Integer, TTV),
    key(
        "Print Transits",
        "0",
        Unsupported,
        Integer,
        "transit output",
    ),
    key(
        "Print RV",
        "0",
        Unsupported,
        Integer,
        "radial-velocity output",
    ),
    key("Print MCMC", "0", Unsupported, Integer, "MCMC fitting"),
    key("NAF variables", "1", Inert, Integer, NAF),
    key("NAF size", "10", Inert, Integer, NAF),
    key("NAF nfreqs", "1", Inert, Integer, NAF),
    key("NAF format", "1", Inert, Integer, NAF),
    key("NAF interval", "1", Inert, Integer, NAF),
    dependent("MCMC NE", "0", Integer, TTV),
    dependent("MCMC Restart", "0", Integer, TTV),
];
