//! The app's wasm code in headless Chromium (`./x test`, or `wasm-pack test --headless --chrome`).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use whereabouts_core::geo::Metres;
use whereabouts_web::{
    fatal,
    protocol::{self, Request, Response},
    ui::basemap::{self, Viewport},
    worker,
};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn messages_survive_the_js_boundary() {
    let request = Request::Ping { nonce: 42 };
    let value = protocol::encode(&request).unwrap();
    // Tagged, readable objects in devtools.
    let tag = js_sys::Reflect::get(&value, &"type".into()).unwrap();
    assert_eq!(tag.as_string().as_deref(), Some("Ping"));
    assert_eq!(protocol::decode::<Request>(value).unwrap(), request);

    let response = Response::Fatal {
        message: "boom".into(),
    };
    let back = protocol::decode::<Response>(protocol::encode(&response).unwrap()).unwrap();
    assert_eq!(back, response);
}

/// A lab's family travels inside the envelope, each tagged: `type` for the envelope, the
/// lab's own key inside.
#[wasm_bindgen_test]
fn a_labs_messages_travel_in_the_envelope() {
    use whereabouts_web::protocol::{SignalRequest, SignalResponse};
    let request = Request::Signal(SignalRequest::Want {
        generation: 3,
        rounds: 5,
    });
    let value = protocol::encode_request(&request).unwrap();
    let get = |k: &str| js_sys::Reflect::get(&value, &k.into()).unwrap().as_string();
    assert_eq!(get("type").as_deref(), Some("Signal"));
    assert_eq!(get("signal").as_deref(), Some("Want"));
    assert_eq!(protocol::decode_request(value).unwrap(), request);

    let response = Response::Signal(SignalResponse::StudyDone {
        id: 2,
        cancelled: true,
    });
    let back = protocol::decode_response(protocol::encode_response(&response).unwrap());
    assert_eq!(back.unwrap(), response);
    let show = Request::Show {
        lab: whereabouts_web::protocol::LabKind::Density,
    };
    let back = protocol::decode_request(protocol::encode_request(&show).unwrap());
    assert_eq!(back.unwrap(), show);
}

#[wasm_bindgen_test]
fn garbage_is_a_decode_error_not_a_panic() {
    let err = protocol::decode::<Request>(js_sys::Number::from(3).into()).unwrap_err();
    assert!(err.contains("could not decode"), "{err}");
}

#[wasm_bindgen_test]
fn worker_handler_answers_a_ping() {
    let mut out = Vec::new();
    worker::handle(Request::Ping { nonce: 7 }, &mut |r| out.push(r));
    assert_eq!(
        out,
        vec![Response::Pong {
            nonce: 7,
            engine_version: whereabouts_engine::VERSION.into()
        }]
    );
}

#[wasm_bindgen_test]
fn fatal_banner_is_visible_and_accumulates() {
    fatal::show_fatal("first failure");
    fatal::show_fatal("second failure");
    let document = web_sys::window().unwrap().document().unwrap();
    let banner = document
        .get_element_by_id(fatal::BANNER_ID)
        .expect("banner shown");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let text = banner.text_content().unwrap();
    assert!(
        text.contains("first failure") && text.contains("second failure"),
        "{text}"
    );
    assert_eq!(
        document
            .query_selector_all(".fatal-banner")
            .unwrap()
            .length(),
        1
    );
}

#[wasm_bindgen_test]
fn basemap_draws_grid_scale_bar_and_north_arrow() {
    let document = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement =
        document.create_element("canvas").unwrap().unchecked_into();
    canvas.set_width(400);
    canvas.set_height(300);
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let view = Viewport {
        centre: Metres::new(0.0, 0.0),
        m_per_px: 4.0,
        width_px: 400.0,
        height_px: 300.0,
    };
    basemap::draw(&ctx, &view);
    let pixel = |x: f64, y: f64| ctx.get_image_data(x, y, 1.0, 1.0).unwrap().data().0;
    // The background colour fills open space.
    let background = pixel(225.0, 175.0); // a grid cell centre (grid: 200 m = 50 px)
    assert_eq!(&background[..3], &[0xf4, 0xf1, 0xea]);
    // The grid line through the origin (x = 200) is drawn.
    assert_ne!(pixel(200.0, 175.0), background);
    // The north arrow is dark ink near the top-right corner.
    let arrow = pixel(376.0, 30.0);
    assert!(arrow[0] < 100, "arrow pixel {arrow:?}");
}

/// A Density event's surfaces cross as one transferred `Float64Array`, not as JS arrays, and
/// come back whole: the page leaves the message as it came (`Response::Later`) and the lab's
/// `decode` reads it.
#[wasm_bindgen_test]
fn density_surfaces_travel_as_a_transferred_attachment() {
    use whereabouts_engine::density::lab::DensityEvent;
    use whereabouts_web::protocol::{DensityResponse, LabKind};
    let family = DensityResponse::Event {
        generation: 2,
        event: DensityEvent::Density {
            exact: (0..64).map(f64::from).collect(),
            estimate: (0..64).map(|i| -f64::from(i) / 7.0).collect(),
        },
    };
    let response = Response::Density(family.clone());
    let value = protocol::encode_response(&response).unwrap();
    let event = js_sys::Reflect::get(&value, &"event".into()).unwrap();
    let exact = js_sys::Reflect::get(&event, &"exact".into()).unwrap();
    assert_eq!(
        js_sys::Array::from(&exact).length(),
        0,
        "no numbers through serde"
    );
    let transfer = protocol::transferables(&value).expect("a buffer to transfer");
    assert_eq!(transfer.length(), 1);
    let Response::Later {
        lab: LabKind::Density,
        message,
    } = protocol::decode_response(value).unwrap()
    else {
        panic!("a Density message is left for the lab to read");
    };
    assert_eq!(protocol::density::decode(message).unwrap(), family);
}

/// Each later lab's messages are left as they came, and read back whole by that lab's
/// `decode`; one lab's message is no other lab's, and a broken one is an error, not a panic.
#[wasm_bindgen_test]
fn later_labs_read_their_own_messages() {
    use whereabouts_web::protocol::{LabKind, LinkResponse, MobRequest, MobResponse};
    let link = LinkResponse::Error {
        generation: 4,
        message: "no file".into(),
    };
    let value = protocol::encode_response(&Response::Linkability(link.clone())).unwrap();
    let Response::Later {
        lab: LabKind::Linkability,
        message,
    } = protocol::decode_response(value).unwrap()
    else {
        panic!("a Linkability message is left for the lab to read");
    };
    assert_eq!(
        protocol::linkability::decode(message.clone()).unwrap(),
        link
    );
    assert!(protocol::mobility::decode(message).is_err());
    let mob = MobResponse::Error {
        generation: 1,
        message: "x".into(),
    };
    let value = protocol::encode_response(&Response::Mobility(mob.clone())).unwrap();
    let Response::Later {
        lab: LabKind::Mobility,
        message,
    } = protocol::decode_response(value).unwrap()
    else {
        panic!("a Mobility message is left for the lab to read");
    };
    assert_eq!(protocol::mobility::decode(message).unwrap(), mob);
    // The worker does the same with their requests: each lab's host reads its own.
    let request = Request::Mobility(MobRequest::Play {
        generation: 2,
        want: 7,
    });
    let value = protocol::encode_request(&request).unwrap();
    let Request::Later {
        lab: LabKind::Mobility,
        message,
    } = protocol::decode_request(value).unwrap()
    else {
        panic!("a Mobility request is left for the lab's host to read");
    };
    assert_eq!(
        protocol::decode_later_request::<MobRequest>(message).unwrap(),
        MobRequest::Play {
            generation: 2,
            want: 7
        }
    );
    // The rest are decoded at once.
    let fatal = Response::Fatal {
        message: "boom".into(),
    };
    let value = protocol::encode_response(&fatal).unwrap();
    assert_eq!(protocol::decode_response(value).unwrap(), fatal);
}

/// The worker's simd128 kernel — crates/simd as build.rs compiles and links it, the object the
/// site's worker splits into its chunk — is there where SIMD is (Chromium), and gives the scalar
/// kernel's bits on layers with a remainder of outputs, dead inputs and zero rows of δ.
#[wasm_bindgen_test]
fn the_linked_simd128_kernel_gives_the_scalar_bits() {
    use whereabouts_engine::signal_map::attack::kernel::{Scalar, first_difference};
    use whereabouts_web::worker::simd::{SIMD128, supported};
    assert!(supported(), "Chromium validates the SIMD probe");
    for (outputs, inputs, seed) in [(37, 29, 1), (640, 224, 2)] {
        assert_eq!(
            first_difference(&Scalar, &SIMD128, outputs, inputs, seed),
            None
        );
    }
}
