//! resolve + validate + path, from the raw argument text (JSON parsing included), on three
//! generated specs (see `specgen`): typical, maximum structure and maximum length.
//!
//! Run: `cargo bench --locked -p askd-core --bench survey`. Bars on the reference machine
//! (2 cores): typical < 100 µs, structure < 5 ms, length < 250 ms.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

/// The allocator the `askd` binary uses, so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "specgen/mod.rs"]
mod specgen;

use specgen::{Fixture, Size};

fn survey(c: &mut Criterion) {
    let mut group = c.benchmark_group("resolve_validate_path");
    for size in Size::ALL {
        // Panics on an invalid generated spec.
        let fx = Fixture::new(size);
        eprintln!("{}: {} bytes of argument text", size.name(), fx.text.len());
        group.throughput(Throughput::Bytes(fx.text.len() as u64));
        match fx.size {
            Size::Typical => {
                group
                    .sampling_mode(SamplingMode::Auto)
                    .sample_size(100)
                    .warm_up_time(Duration::from_secs(2))
                    .measurement_time(Duration::from_secs(5));
            }
            Size::Structure => {
                group
                    .sampling_mode(SamplingMode::Auto)
                    .sample_size(30)
                    .warm_up_time(Duration::from_secs(2))
                    .measurement_time(Duration::from_secs(10));
            }
            Size::Length => {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(20)
                    .warm_up_time(Duration::from_secs(2))
                    .measurement_time(Duration::from_secs(15));
            }
        }
        group.bench_function(BenchmarkId::from_parameter(size.name()), |b| {
            b.iter(|| specgen::run(black_box(&fx.text), black_box(&fx.answers)))
        });
    }
    group.finish();
}

criterion_group!(benches, survey);
criterion_main!(benches);
