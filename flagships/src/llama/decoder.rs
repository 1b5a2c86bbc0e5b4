//! Decoding on the GPU with the step graph ([`super::graph`]) over the weights and state of
//! [`super::device`] ([`Weights`], [`State`]): the [`Decoder`], one graph launch per token.
//!
//! ```no_run
//! # fn demo(ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>) -> Result<(), Box<dyn std::error::Error>> {
//! use cuda_graph_flagships::llama::{Checkpoint, Decoder, Position, Shape, State, Steps, Weights};
//! use cuda_graph::half::bf16;
//! let ckpt = Checkpoint::open("llama-dir")?;
//! let stream = ctx.default_stream();
//! let shape = Shape::new(&ckpt.config, 4096)?;
//! let weights = Weights::<bf16>::upload(&stream, &ckpt.config, &ckpt, &shape)?;
//! let mut state = State::new(&stream, &shape)?;
//! let mut dec = Decoder::new(ctx, &shape, &weights, &mut state, Position::Counter)?;
//! let ids = dec.generate(&[1, 2, 3], 16, |t| { println!("{t}"); true })?;
//! # let _ = ids; Ok(()) }
//! ```

use std::sync::Arc;
use std::time::Instant;

use cuda_graph::cudarc::driver::{CudaContext, CudaStream};

pub use super::device::{rotary_tables, Element, Shape, State, Weights};
pub use super::either::Exec;
pub use super::error::LlamaError;

/// How the step graph learns the position of the token it decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The device keeps it (`dpos`), and each step advances it: the host only launches.
    Counter,
    /// The host sets the graph's `pos` param before each launch (a graph-level setter: one
    /// driver call per node that uses it).
    Setter,
}

/// Timings of one generation (see [`Steps::timed`]).
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// New tokens over the time from the first new token's step to the last token's arrival.
    pub tokens_per_s: f64,
    /// Host time per step spent issuing it (setting the position, launching).
    pub host_us_per_token: f64,
}

/// The decoder: the step graph of one model, executable, and the position.
pub struct Decoder<'a> {
    exec: Exec<'a>,
    stream: Arc<CudaStream>,
    shape: Shape,
    position: Position,
    pos: usize,
}

/// Runs `$body` with `$e` bound to the executable graph, whichever its element type.
macro_rules! on {
    ($self:expr, $e:ident => $body:expr) => {
        match &mut $self.exec {
            Exec::F32($e) => $body,
            Exec::Bf16($e) => $body,
        }
    };
}

impl<'a> Decoder<'a> {
    /// Builds the step graph over `weights` and `state` and makes it executable.
    pub fn new<T: Element>(
        ctx: &Arc<CudaContext>,
        shape: &Shape,
        weights: &'a Weights<T>,
        state: &'a mut State<T>,
        position: Position,
    ) -> Result<Decoder<'a>, LlamaError> {
        let exec = T::exec(ctx, shape, weights, state, position == Position::Counter)?;
        Ok(Decoder {
            exec,
            stream: ctx.default_stream(),
            shape: shape.clone(),
            position,
            pos: 0,
        })
    }

    /// How it advances the position.
    pub fn position(&self) -> Position {
        self.position
    }
}

/// A decoder that launches one step a token: [`Decoder`] on one GPU,
/// [`TpDecoder`](super::tp::TpDecoder) split over several. Greedy generation, timed generation
/// and teacher forcing are written once, on the steps.
pub trait Steps {
    /// The (whole) model's shape it was built with.
    fn shape(&self) -> &Shape;

    /// Starts a new sequence: `ids` at positions 0, 1, ..., of which the first `prompt_len`
    /// are kept (the steps write their picks after them).
    fn start(&mut self, ids: &[u32], prompt_len: usize) -> Result<(), LlamaError>;

    /// Launches the step at the next position (asynchronous).
    fn step(&mut self) -> Result<(), LlamaError>;

    /// Waits for the steps launched so far.
    fn synchronize(&mut self) -> Result<(), LlamaError>;

    /// Steps launched since [`start`](Self::start): the position the last one decoded, plus 1.
    fn stepped(&self) -> usize;

    /// The tokens at positions `from..from + out.len()` (after a
    /// [`synchronize`](Self::synchronize)).
    fn tokens(&mut self, from: usize, out: &mut [u32]) -> Result<(), LlamaError>;

    /// The logits of the last step (after a [`synchronize`](Self::synchronize)).
    fn logits(&mut self) -> Result<Vec<f32>, LlamaError>;

    /// The token at position `p` (after a [`synchronize`](Self::synchronize)).
    fn token(&mut self, p: usize) -> Result<u32, LlamaError> {
        let mut out = [0u32];
        self.tokens(p, &mut out)?;
        Ok(out[0])
    }

    /// Greedy generation of up to `max_new` tokens after `prompt`, each handed to `on_token` as
    /// it is made (it returns `false` to stop); the prompt runs through the step graph token by
    /// token. Returns the new tokens.
    fn generate(
        &mut self,
        prompt: &[u32],
        max_new: usize,
        mut on_token: impl FnMut(u32) -> bool,
    ) -> Result<Vec<u32>, LlamaError>
    where
        Self: Sized,
    {
        self.shape().check_prompt(prompt, max_new)?;
        self.start(prompt, prompt.len())?;
        for _ in 1..prompt.len() {
            self.step()?;
        }
        let mut out = Vec::with_capacity(max_new);
        for _ in 0..max_new {
            self.step()?;
            self.synchronize()?;
            let t = self.token(self.stepped())?;
            out.push(t);
            if !on_token(t) {
                break;
            }
        }
        Ok(out)
    }

    /// Greedy generation of `max_new` tokens after `prompt` with every step launched back to
    /// back and one wait at the end, timed: see [`Timing`]. Returns the new tokens.
    fn timed(&mut self, prompt: &[u32], max_new: usize) -> Result<(Vec<u32>, Timing), LlamaError> {
        self.shape().check_prompt(prompt, max_new)?;
        self.start(prompt, prompt.len())?;
        for _ in 1..prompt.len() {
            self.step()?;
        }
        self.synchronize()?;
        let t0 = Instant::now();
        let mut issuing = 0.0;
        for _ in 0..max_new {
            let s = Instant::now();
            self.step()?;
            issuing += s.elapsed().as_secs_f64();
        }
        self.synchronize()?;
        let elapsed = t0.elapsed().as_secs_f64();
        let mut ids = vec![0u32; max_new];
        self.tokens(prompt.len(), &mut ids)?;
        Ok((
            ids,
            Timing {
                tokens_per_s: max_new as f64 / elapsed,
                host_us_per_token: issuing * 1e6 / max_new as f64,
            },
        ))
    }

    /// The logits of every step over `ids` given (teacher forcing): row `i` is what the model
    /// predicts after `ids[..=i]`, `vocab` floats a row.
    fn teacher_forced(&mut self, ids: &[u32]) -> Result<Vec<f32>, LlamaError> {
        self.shape().check_prompt(ids, 0)?;
        self.start(ids, ids.len())?;
        let mut out = Vec::with_capacity(ids.len() * self.shape().vocab);
        for _ in 0..ids.len() {
            self.step()?;
            self.synchronize()?;
            out.extend(self.logits()?);
        }
        Ok(out)
    }
}

impl Steps for Decoder<'_> {
    fn shape(&self) -> &Shape {
        &self.shape
    }

    fn start(&mut self, ids: &[u32], prompt_len: usize) -> Result<(), LlamaError> {
        self.shape.check_prompt(ids, 0)?;
        let stream = self.stream.clone();
        on!(self, e => {
            stream.memcpy_htod(ids, &mut e.ids_mut()?.slice_mut(0..ids.len()))?;
            stream.memcpy_htod(&[0u32], &mut e.dpos_mut()?)?;
            e.set_prompt_len(prompt_len as u32)?;
        });
        self.pos = 0;
        Ok(())
    }

    /// One graph launch; in setter mode, the position set first.
    fn step(&mut self) -> Result<(), LlamaError> {
        let (stream, pos) = (self.stream.clone(), self.pos as u32);
        let setter = self.position == Position::Setter;
        on!(self, e => {
            if setter {
                e.set_pos(pos)?;
            }
            e.launch(&stream)?;
        });
        self.pos += 1;
        Ok(())
    }

    fn synchronize(&mut self) -> Result<(), LlamaError> {
        on!(self, e => e.synchronize()?);
        Ok(())
    }

    fn stepped(&self) -> usize {
        self.pos
    }

    fn tokens(&mut self, from: usize, out: &mut [u32]) -> Result<(), LlamaError> {
        let stream = self.stream.clone();
        let n = out.len();
        on!(self, e => stream.memcpy_dtoh(&e.ids()?.slice(from..from + n), out)?);
        Ok(())
    }

    fn logits(&mut self) -> Result<Vec<f32>, LlamaError> {
        let stream = self.stream.clone();
        Ok(on!(self, e => stream.clone_dtoh(e.logits()?)?))
    }
}
