//! The transposition table.
//!
//! Buckets of four entries fill one 64-byte cache line. Each entry is two
//! atomic words, the data and the key xor the data, so a reader on another
//! thread that catches a half-written entry sees a key mismatch and treats
//! it as a miss instead of trusting torn data (the lock-free scheme of
//! Hyatt and Mann). On one thread the atomics compile to plain moves.
//!
//! Mate scores are stored relative to the node (see [`crate::score::to_tt`]);
//! the caller converts, the table only packs.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use shakmaty::Move;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the score (fail high).
    Lower = 1,
    /// The true value is at most the score (fail low).
    Upper = 2,
    /// The score is exact (PV node).
    Exact = 3,
}

/// A move in 16 bits: from, to (the rook square for castling, as shakmaty
/// writes it) and the promotion role. Zero means "no move".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(pub u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn new(m: Move) -> PackedMove {
        let from = m.from().map_or(0, u16::from);
        let to = u16::from(m.to());
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from | (to << 6) | (promo << 12))
    }

    /// Whether this is the packed form of `m`.
    #[inline]
    pub fn matches(self, m: Move) -> bool {
        self.0 != 0 && self == PackedMove::new(m)
    }
}

/// A probe result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mv: PackedMove,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

const ENTRIES: usize = 4;
/// Two words per entry: the key xor the data, and the data.
const WORDS_PER_BUCKET: usize = 2 * ENTRIES;
const BUCKET_BYTES: usize = WORDS_PER_BUCKET * 8;

// data layout: move 16 | score 16 | eval 16 | depth 8 | generation 6 + bound 2
fn pack(mv: PackedMove, score: i32, eval: i32, depth: i32, generation: u8, bound: Bound) -> u64 {
    u64::from(mv.0)
        | (u64::from(score as i16 as u16) << 16)
        | (u64::from(eval as i16 as u16) << 32)
        | (u64::from(depth.clamp(0, 255) as u8) << 48)
        | (u64::from((generation << 2) | bound as u8) << 56)
}

fn unpack_move(data: u64) -> PackedMove {
    PackedMove(data as u16)
}

/// `data` with its move replaced by `mv`, the rest kept.
fn with_move(data: u64, mv: PackedMove) -> u64 {
    (data & !0xffff) | u64::from(mv.0)
}

fn unpack_bound(data: u64) -> Option<Bound> {
    match (data >> 56) & 3 {
        1 => Some(Bound::Lower),
        2 => Some(Bound::Upper),
        3 => Some(Bound::Exact),
        _ => None,
    }
}

fn unpack_depth(data: u64) -> i32 {
    i32::from((data >> 48) as u8)
}

fn unpack_generation(data: u64) -> u8 {
    (data >> 58) as u8
}

/// The huge-page size of x86-64 and most 64-bit Linux systems.
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back `words`, which starts on a huge-page boundary, with
/// huge pages. Every probe lands on a random bucket, so with 4 KiB pages
/// nearly every probe also misses the processor's address-translation
/// cache; 2 MiB pages make those misses rare. `bench` runs some 12% faster
/// this way (see `docs/nets.md`, "Speed"). Systems that give huge pages to
/// every large allocation anyway, or none, are not affected, and a refusal
/// changes nothing but the speed.
fn advise_huge_pages(words: &[AtomicU64]) {
    #[cfg(target_os = "linux")]
    {
        let whole = words.len() * 8 / HUGE_PAGE * HUGE_PAGE;
        if whole > 0 {
            // SAFETY: the range lies inside `words`, which this table owns,
            // and starts on a page boundary as madvise requires.
            // MADV_HUGEPAGE is advice about how to map the range: it reads
            // and writes nothing and keeps the contents, so the slice stays
            // valid whatever the result.
            unsafe {
                libc::madvise(
                    words.as_ptr() as *mut libc::c_void,
                    whole,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = words;
}

/// The shared table. All methods take `&self`, so threads share it freely.
///
/// The words come from a zeroed allocation, which the operating system
/// maps lazily: a table of many gigabytes is ready at once and costs memory
/// only where it is written. Buckets start `offset` words in, so that each
/// fills one cache line; a table of at least [`HUGE_PAGE`] bytes starts on
/// a huge-page boundary instead and asks the operating system to back it
/// with huge pages (see [`advise_huge_pages`]).
pub struct Tt {
    words: Box<[AtomicU64]>,
    offset: usize,
    buckets: usize,
    generation: AtomicU8,
}

/// Generations wrap at 64 (six bits in the entry).
const GENERATIONS: u8 = 64;

/// How much deeper a stored result of this search must be to survive a
/// new bound for the same position.
const SHALLOW_MARGIN: i32 = 3;

impl Tt {
    /// A table of `mb` mebibytes (at least one bucket).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn new(mb: usize) -> Result<Tt, String> {
        let buckets = (mb.saturating_mul(1 << 20) / BUCKET_BYTES).max(1);
        Tt::with_buckets(buckets)
            .ok_or_else(|| format!("cannot allocate {mb} MB for the hash table"))
    }

    fn with_buckets(buckets: usize) -> Option<Tt> {
        let bytes = buckets.checked_mul(BUCKET_BYTES)?;
        // A spare stretch leaves room to align the first bucket: to a huge
        // page for tables that span one, else to a cache line.
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            BUCKET_BYTES
        };
        let len = bytes.checked_add(align)? / 8;
        let words = bytemuck::allocation::try_zeroed_slice_box::<AtomicU64>(len).ok()?;
        let misalign = words.as_ptr() as usize % align;
        let offset = ((align - misalign) % align) / 8;
        if align == HUGE_PAGE {
            advise_huge_pages(&words[offset..offset + bytes / 8]);
        }
        Some(Tt {
            words,
            offset,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Size in mebibytes.
    pub fn size_mb(&self) -> usize {
        (self.buckets * BUCKET_BYTES) >> 20
    }

    /// Forgets everything, word by word (the engine replaces large tables by
    /// fresh zeroed ones instead, which is instant).
    pub fn clear(&self) {
        for word in &self.words {
            word.store(0, Relaxed);
        }
        self.generation.store(0, Relaxed);
    }

    /// Marks the start of a new search, so older entries age.
    pub fn new_search(&self) {
        let next = (self.generation.load(Relaxed) + 1) % GENERATIONS;
        self.generation.store(next, Relaxed);
    }

    /// Where the bucket of `key` starts in `words`.
    #[inline]
    fn bucket_start(&self, key: u64) -> usize {
        // Multiply-shift maps the key onto any table length, not only powers of two.
        let index = ((u128::from(key) * self.buckets as u128) >> 64) as usize;
        self.offset + index * WORDS_PER_BUCKET
    }

    /// Asks the processor to bring the bucket of `key` into its cache, so
    /// that a probe a little later need not wait on memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let word: *const AtomicU64 = &raw const self.words[self.bucket_start(key)];
            // SAFETY: a prefetch is only a hint: it reads nothing into the
            // program, writes nothing and cannot fault; the address lies in
            // `words` all the same. (The call is `unsafe` only because the
            // intrinsic is declared for the SSE target feature, which every
            // x86-64 processor has.)
            unsafe { _mm_prefetch::<_MM_HINT_T0>(word.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The bucket of `key` as (key xor data, data) word pairs.
    #[inline]
    fn bucket(&self, key: u64) -> impl Iterator<Item = Slot<'_>> {
        let start = self.bucket_start(key);
        self.words[start..start + WORDS_PER_BUCKET]
            .chunks_exact(2)
            .map(|w| Slot {
                key_xor: &w[0],
                data: &w[1],
            })
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for slot in self.bucket(key) {
            let data = slot.data.load(Relaxed);
            if slot.key_xor.load(Relaxed) ^ data == key
                && let Some(bound) = unpack_bound(data)
            {
                return Some(Entry {
                    mv: unpack_move(data),
                    score: i32::from((data >> 16) as i16),
                    eval: i32::from((data >> 32) as i16),
                    depth: unpack_depth(data),
                    bound,
                });
            }
        }
        None
    }

    /// Stores a result. Replaces the same position, else the entry of least
    /// worth: shallow and from older searches.
    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, key: u64, mv: PackedMove, score: i32, eval: i32, depth: i32, bound: Bound) {
        let generation = self.generation.load(Relaxed);
        let mut victim = None;
        let mut victim_worth = i32::MAX;
        for slot in self.bucket(key) {
            let data = slot.data.load(Relaxed);
            if slot.key_xor.load(Relaxed) ^ data == key {
                // Same position: keep its move when the new result has none.
                let mv = if mv == PackedMove::NONE {
                    unpack_move(data)
                } else {
                    mv
                };
                // A bound from a much shallower search (a reduced one, or
                // the quiescence search) is worth less than a deeper
                // result of this search: keep that, with the newer move.
                let new_data = if bound != Bound::Exact
                    && unpack_generation(data) == generation
                    && unpack_depth(data) > depth + SHALLOW_MARGIN
                {
                    with_move(data, mv)
                } else {
                    pack(mv, score, eval, depth, generation, bound)
                };
                write(&slot, key, new_data);
                return;
            }
            let age = i32::from((GENERATIONS + generation - unpack_generation(data)) % GENERATIONS);
            let worth = if unpack_bound(data).is_none() {
                i32::MIN
            } else {
                unpack_depth(data) - 8 * age
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = Some(slot);
            }
        }
        if let Some(victim) = victim {
            write(
                &victim,
                key,
                pack(mv, score, eval, depth, generation, bound),
            );
        }
    }

    /// Per-mille of the table used by the current search, from a sample.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed);
        let sample = self.buckets.min(250);
        let mut used = 0;
        let words = &self.words[self.offset..self.offset + sample * WORDS_PER_BUCKET];
        for pair in words.chunks_exact(2) {
            let data = pair[1].load(Relaxed);
            if unpack_bound(data).is_some() && unpack_generation(data) == generation {
                used += 1;
            }
        }
        (used * 1000 / (sample * ENTRIES).max(1)) as u32
    }
}

/// One entry's two words inside a bucket.
struct Slot<'a> {
    key_xor: &'a AtomicU64,
    data: &'a AtomicU64,
}

#[inline]
fn write(slot: &Slot, key: u64, data: u64) {
    slot.key_xor.store(key ^ data, Relaxed);
    slot.data.store(data, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{MATE, from_tt, to_tt};
    use shakmaty::{Chess, Position};

    #[test]
    fn store_then_probe_returns_what_was_stored() {
        let tt = Tt::new(1).unwrap();
        let m = Chess::default().legal_moves()[3];
        tt.store(0xdead_beef, PackedMove::new(m), -123, 45, 7, Bound::Lower);
        let e = tt.probe(0xdead_beef).unwrap();
        assert!(e.mv.matches(m));
        assert_eq!(
            (e.score, e.eval, e.depth, e.bound),
            (-123, 45, 7, Bound::Lower)
        );
        assert!(tt.probe(0xdead_bef0).is_none());
    }

    #[test]
    fn mate_scores_survive_storage_relative_to_the_node() {
        let tt = Tt::new(1).unwrap();
        // Found at ply 5: mate in 4 plies from the root is mate in ... from the node.
        let root_score = MATE - 9;
        tt.store(
            42,
            PackedMove::NONE,
            to_tt(root_score, 5),
            0,
            3,
            Bound::Exact,
        );
        let stored = tt.probe(42).unwrap().score;
        // Read at ply 5 again: the same. Read at ply 1 (a transposition nearer
        // the root): the mate is 4 plies nearer.
        assert_eq!(from_tt(stored, 5), root_score);
        assert_eq!(from_tt(stored, 1), MATE - 5);
        // And mated scores the other way round.
        tt.store(
            43,
            PackedMove::NONE,
            to_tt(-(MATE - 8), 4),
            0,
            3,
            Bound::Upper,
        );
        assert_eq!(from_tt(tt.probe(43).unwrap().score, 2), -(MATE - 6));
    }

    #[test]
    fn clear_forgets_and_keeps_move_when_new_has_none() {
        let tt = Tt::new(1).unwrap();
        let m = Chess::default().legal_moves()[0];
        tt.store(7, PackedMove::new(m), 10, 0, 4, Bound::Exact);
        tt.store(7, PackedMove::NONE, 20, 0, 5, Bound::Upper);
        let e = tt.probe(7).unwrap();
        assert!(e.mv.matches(m));
        assert_eq!(e.score, 20);
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(7).is_none());
    }

    #[test]
    fn a_much_shallower_bound_keeps_the_deeper_result_but_takes_its_move() {
        let tt = Tt::new(1).unwrap();
        let moves = Chess::default().legal_moves();
        let (a, b) = (PackedMove::new(moves[0]), PackedMove::new(moves[1]));
        tt.store(9, a, 50, 5, 10, Bound::Lower);
        // Four plies shallower: the deep result stays, the move is the new one.
        tt.store(9, b, -20, 5, 6, Bound::Upper);
        let e = tt.probe(9).unwrap();
        assert_eq!((e.score, e.depth, e.bound), (50, 10, Bound::Lower));
        assert_eq!(e.mv, b);
        // Three plies shallower is close enough to replace it.
        tt.store(9, PackedMove::NONE, 7, 5, 7, Bound::Upper);
        let e = tt.probe(9).unwrap();
        assert_eq!((e.score, e.depth, e.bound, e.mv), (7, 7, Bound::Upper, b));
        // A result of an earlier search gives way to any new one.
        tt.store(9, a, 60, 5, 12, Bound::Lower);
        tt.new_search();
        tt.store(9, PackedMove::NONE, 3, 5, 1, Bound::Upper);
        let e = tt.probe(9).unwrap();
        assert_eq!((e.score, e.depth, e.bound, e.mv), (3, 1, Bound::Upper, a));
    }

    #[test]
    fn replacement_prefers_old_and_shallow_entries() {
        // Keys in one bucket: with one bucket table every key shares it.
        let tiny = Tt::with_buckets(1).unwrap();
        for (k, d) in [(1u64, 9), (2, 3), (3, 8), (4, 7)] {
            tiny.store(k, PackedMove::NONE, 0, 0, d, Bound::Exact);
        }
        tiny.store(5, PackedMove::NONE, 0, 0, 1, Bound::Exact);
        assert!(tiny.probe(2).is_none(), "the shallowest entry goes");
        assert!(tiny.probe(1).is_some() && tiny.probe(5).is_some());
    }

    #[test]
    fn buckets_fill_cache_lines() {
        for mb in [1, 3, 16] {
            let tt = Tt::new(mb).unwrap();
            let first = tt.words[tt.offset..].as_ptr() as usize;
            assert_eq!(first % 64, 0);
            assert!(tt.offset + tt.buckets * WORDS_PER_BUCKET <= tt.words.len());
            assert_eq!(tt.size_mb(), mb);
            if mb >= 2 {
                assert_eq!(first % HUGE_PAGE, 0, "{mb} MB starts on a huge page");
            }
        }
    }
}
