use std::time::Instant;
use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::lab::Lab;
use whereabouts_engine::signal_map::scenario::{ScenarioConfig, WorldChoice};
use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;
use whereabouts_engine::signal_map::world::{Preset, World};

fn main() {
    let t = TrajectoryPreset::Commute.trajectory(900.0, 850.0);
    let config = ScenarioConfig {
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(7),
            weeks: Some(1),
            cell: None,
            background: None,
        },
        participants: Some(vec![0]),
        trajectory: Some(t.clone()),
        ..ScenarioConfig::default()
    };
    let s = Instant::now();
    let w = World::generate(&config.world_config()).unwrap();
    println!("world {:?}", s.elapsed());
    let s = Instant::now();
    let _m = t.measurements(&w, 0, 1);
    println!("measurements {:?}", s.elapsed());
    let s = Instant::now();
    let mut lab = Lab::new(config).unwrap();
    println!("lab new {:?}", s.elapsed());
    lab.want(5);
    let s = Instant::now();
    lab.finish(&mut |_| {}).unwrap();
    println!("5 rounds {:?}", s.elapsed());
    let mut moved = t.clone();
    for k in 0..5 {
        moved.waypoints[6] = Metres::new(-180.0 + 10.0 * k as f64, 85.0);
        let s = Instant::now();
        lab.set_trajectory(moved.clone(), &mut |_| {}).unwrap();
        let a = s.elapsed();
        let s2 = Instant::now();
        let h = lab.heat_map(Some(0), 600);
        let hh = s2.elapsed();
        lab.finish(&mut |_| {}).unwrap();
        println!(
            "edit: analytic {:?}, heat {:?} ({}), all {:?}",
            a,
            hh,
            h.is_some(),
            s.elapsed()
        );
    }
}
