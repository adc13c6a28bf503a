//! Timed events while a profiler is on: ops, backward nodes and user ranges, each with its start and end
//! (nanoseconds since the first use of the clock), its thread and, when asked, its inputs' shapes.
//!
//! Off costs one relaxed load of `ENABLED` per op, at the one place ops enter (the bindings' `call`): no
//! clock is read and nothing is stored. On, an event is pushed once it ends, into one vector under a mutex
//! (taken once per event; the profiler's own cost is not the point of a profile, and a vector per thread
//! would need a registry of threads to be collected). Parents are not stored: a reader nests events by their
//! intervals on each thread, as PyTorch's `FunctionEvent.cpu_parent` does.
//!
//! Input shapes come from the op's recording step (`autograd::record`, which sees the op's tensor inputs
//! whether or not it records history): the bindings turn the capture on for the current thread while a
//! profiled op runs (`grad_mode::set_capture_shapes`), so that off it costs no load at all.
use parking_lot::Mutex;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

static ENABLED: AtomicBool = AtomicBool::new(false);
static RECORD_SHAPES: AtomicBool = AtomicBool::new(false);
static EVENTS: Mutex<Vec<Event>> = Mutex::new(Vec::new());
static CLOCK_START: OnceLock<Instant> = OnceLock::new();
static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The profiler's number for this thread (1 for the first thread that records, as PyTorch numbers them).
    static THREAD_ID: Cell<u64> = const { Cell::new(0) };
    /// The input shapes the running op's recording step saw (None while no op is being captured).
    static CAPTURED_SHAPES: RefCell<Option<Vec<Vec<usize>>>> = const { RefCell::new(None) };
}

/// What an event is, for its name and its category in a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// A tensor op called from Python (`aten::add`).
    Op = 0,
    /// A `record_function` range.
    UserAnnotation = 1,
    /// The engine running one node (PyTorch's `autograd::engine::evaluate_function: <node>`).
    EvaluateFunction = 2,
    /// The node's rule itself, inside its `EvaluateFunction` (named as the node: `MulBackward0`).
    BackwardRule = 3,
}

/// One timed range. `input_shapes` is None when shapes were not recorded.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: Cow<'static, str>,
    pub kind: EventKind,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread: u64,
    pub input_shapes: Option<Vec<Vec<usize>>>,
    /// The node's sequence number for backward events (-1 otherwise), as PyTorch's `sequence_nr`.
    pub sequence_nr: i64,
}

/// Whether a profiler is collecting events: the only check on the op path when it is not.
#[inline(always)]
pub fn is_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Whether events carry their inputs' shapes.
pub fn records_shapes() -> bool {
    RECORD_SHAPES.load(Ordering::Relaxed)
}

/// Starts collecting (dropping anything left from an earlier profile); a RuntimeError if already on.
pub fn start(record_shapes: bool) -> crate::Result<()> {
    let mut events = EVENTS.lock();
    if is_enabled() {
        return Err(crate::Error::Runtime("Profiler is already enabled on this thread".into()));
    }
    events.clear();
    RECORD_SHAPES.store(record_shapes, Ordering::Relaxed);
    ENABLED.store(true, Ordering::Release);
    Ok(())
}

/// Stops collecting and hands over the events, ordered by start (an enclosing range before what it holds).
pub fn stop() -> Vec<Event> {
    let mut events = EVENTS.lock();
    ENABLED.store(false, Ordering::Release);
    let mut out = std::mem::take(&mut *events);
    // the vector's memory goes with the events: nothing stays allocated once profiling is off
    *events = Vec::new();
    out.sort_by(|a, b| {
        (a.thread, a.start_ns, std::cmp::Reverse(a.end_ns)).cmp(&(b.thread, b.start_ns, std::cmp::Reverse(b.end_ns)))
    });
    out
}

/// The event buffer's length and capacity (both 0 whenever no profile runs: nothing is kept between profiles).
pub fn buffered() -> (usize, usize) {
    let events = EVENTS.lock();
    (events.len(), events.capacity())
}

/// Nanoseconds since the profiler's clock started (its first use in the process).
pub fn now_ns() -> u64 {
    CLOCK_START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// The profiler's number for the calling thread.
pub fn thread_id() -> u64 {
    THREAD_ID.with(|id| {
        if id.get() == 0 {
            id.set(NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed));
        }
        id.get()
    })
}

/// Keeps a finished event, unless profiling stopped while it ran (it would belong to no profile).
pub fn push(event: Event) {
    let mut events = EVENTS.lock();
    if is_enabled() {
        events.push(event);
    }
}

/// An open range: made when it starts, pushed as an event when `finish`ed or dropped (an error or a panic
/// unwinding through an op still ends its range, as PyTorch's RecordFunction guard does).
pub struct Range {
    name: Cow<'static, str>,
    kind: EventKind,
    start_ns: u64,
    sequence_nr: i64,
    input_shapes: Option<Vec<Vec<usize>>>,
}

impl Range {
    pub fn start(name: impl Into<Cow<'static, str>>, kind: EventKind) -> Range {
        Range { name: name.into(), kind, start_ns: now_ns(), sequence_nr: -1, input_shapes: None }
    }

    pub fn with_sequence_nr(mut self, nr: i64) -> Range {
        self.sequence_nr = nr;
        self
    }

    pub fn set_input_shapes(&mut self, shapes: Vec<Vec<usize>>) {
        self.input_shapes = Some(shapes);
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        push(Event {
            name: std::mem::take(&mut self.name),
            kind: self.kind,
            start_ns: self.start_ns,
            end_ns: now_ns(),
            thread: thread_id(),
            input_shapes: self.input_shapes.take(),
            sequence_nr: self.sequence_nr,
        });
    }
}

/// Runs `f` as one op named `name`: timed, with its inputs' shapes when the profile records them. Called only
/// once `is_enabled()` said yes.
pub fn run_op<T>(name: Cow<'static, str>, f: impl FnOnce() -> T) -> T {
    let mut range = Range::start(name, EventKind::Op);
    if !records_shapes() {
        return f();
    }
    // an op called inside another (a binding calling a binding) captures its own shapes, then the outer resumes
    let outer = CAPTURED_SHAPES.with(|c| c.borrow_mut().replace(Vec::new()));
    let was_capturing = crate::autograd::grad_mode::set_capture_shapes(true);
    let out = f();
    crate::autograd::grad_mode::set_capture_shapes(was_capturing);
    let shapes = CAPTURED_SHAPES.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    range.set_input_shapes(shapes.unwrap_or_default());
    out
}

/// The recording step of an op saw these inputs (the last step of an op that records several wins: the op's
/// own, where an op is built from others).
pub(crate) fn capture_input_shapes(inputs: &[&crate::Tensor]) {
    CAPTURED_SHAPES.with(|c| {
        if let Some(shapes) = c.borrow_mut().as_mut() {
            shapes.clear();
            shapes.extend(inputs.iter().map(|t| t.shape().to_vec()));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the profiler is global, and cargo runs tests in parallel (so other tests' events, a backward's
    // nodes on another thread, land in it too: only this thread's are read).
    #[test]
    fn ranges_nest_and_off_records_nothing() {
        {
            let _r = Range::start("before", EventKind::UserAnnotation);
        }
        start(true).unwrap();
        assert!(start(false).is_err());
        {
            let _outer = Range::start("outer", EventKind::UserAnnotation);
            let x = crate::Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
            run_op("aten::neg".into(), || x.neg().unwrap());
        }
        let this_thread = thread_id();
        let events: Vec<Event> = stop().into_iter().filter(|e| e.thread == this_thread).collect();
        let names: Vec<&str> = events.iter().map(|e| e.name.as_ref()).collect();
        assert_eq!(names, ["outer", "aten::neg"]);
        assert!(events[0].start_ns <= events[1].start_ns && events[1].end_ns <= events[0].end_ns);
        assert_eq!(events[1].input_shapes.as_deref(), Some(&[vec![2usize]][..]));
        {
            let _r = Range::start("after", EventKind::UserAnnotation);
        }
        assert!(stop().iter().all(|e| e.thread != this_thread));
    }
}
