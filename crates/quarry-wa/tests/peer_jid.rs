//! The JID expectations of `wacore-binary` 0.7's own unit tests, restated
//! against quarry's [`Jid`]: their input texts and expected fields are
//! facts about WhatsApp's JID grammar. Where quarry differs on purpose, the
//! difference is listed in `docs/wa-format.md` ("Differences from
//! wacore-binary") and not asserted here.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use quarry_wa::{Jid, JidUser, Server};

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// `(text, user, agent, device)` parsed as WhatsApp's text grammar reads it.
#[track_caller]
fn parses_to<'a>(text: &'a str, user: &str, agent: u8, device: u16) -> Jid<'a> {
    let jid = Jid::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(jid.user(), user, "user of {text}");
    assert_eq!(jid.agent(), agent, "agent of {text}");
    assert_eq!(jid.device(), device, "device of {text}");
    jid
}

#[test]
fn an_agent_past_a_byte_leaves_the_user_whole() {
    // `.N` is an agent on these servers only when N fits a byte; a larger
    // number is part of the user, as the decoder renders such a user.
    let jid = parses_to("12345.678@hosted.lid", "12345.678", 0, 0);
    assert_eq!(jid.server(), Server::HostedLid);
    assert_eq!(jid.to_string(), "12345.678@hosted.lid");
    let jid = parses_to("123.999@interop", "123.999", 0, 0);
    assert_eq!(jid.server(), Server::Interop);
    assert_eq!(jid.to_string(), "123.999@interop");
    // 256 is the first number that is no agent, 65536 no u16 either.
    parses_to("7.256@bot", "7.256", 0, 0);
    parses_to("7.65536@bot", "7.65536", 0, 0);
    parses_to("7.255@bot", "7", 255, 0);
}

#[test]
fn an_agent_on_a_device_server_is_neither_text_nor_identity() {
    let jid = Jid::new("5511999887766", Server::Pn)
        .with_agent(1)
        .with_device(7);
    assert_eq!(jid.to_string(), "5511999887766:7@s.whatsapp.net");
    assert_eq!(jid, "5511999887766:7@s.whatsapp.net");
    assert_eq!(jid.rendered_len(), "5511999887766:7@s.whatsapp.net".len());
    let text = jid.to_string();
    let back = Jid::parse(&text).unwrap();
    assert_eq!(back, jid);
    assert_eq!(hash_of(&back), hash_of(&jid));

    for server in [Server::Pn, Server::Lid, Server::Hosted, Server::HostedLid] {
        let clean = Jid::new("123456789012345", server).with_device(7);
        let with_agent = clean.with_agent(1);
        assert_eq!(clean, with_agent, "{server:?}");
        assert_eq!(hash_of(&clean), hash_of(&with_agent), "{server:?}");
        assert_eq!(clean.to_string(), with_agent.to_string(), "{server:?}");
        // The integrator stays part of identity.
        assert_ne!(clean, clean.with_integrator(0xBEEF), "{server:?}");
    }
    // Where the agent is rendered, it is identity.
    let interop = Jid::new("123456789", Server::Interop).with_agent(4);
    assert_ne!(interop, interop.with_agent(5));
    assert_eq!(
        Jid::new("user", Server::Bot)
            .with_agent(5)
            .with_device(10)
            .to_string(),
        "user.5:10@bot"
    );
}

#[test]
fn the_dot_rules_per_server() {
    // (text, user, agent, device)
    let cases = [
        ("123456789.4:17@interop", "123456789", 4u8, 17u16),
        ("123456789.4@interop", "123456789", 4, 0),
        ("123.999@interop", "123.999", 0, 0),
        // The legacy device spelling on s.whatsapp.net.
        ("5511999998888.2@s.whatsapp.net", "5511999998888", 0, 2),
        // Dots in a LID user are the user's.
        ("12345.678@lid", "12345.678", 0, 0),
        ("12345.678:9@lid", "12345.678", 0, 9),
        // hosted.lid and c.us take the general rule.
        ("12345.6@hosted.lid", "12345", 6, 0),
        ("12345.678@hosted.lid", "12345.678", 0, 0),
        ("12345.6@c.us", "12345", 6, 0),
        // The last colon splits off the device; the agent's dot is after
        // the first colon.
        ("a:1.5:2@bot", "a:1", 5, 2),
        ("1234567890.2:15@hosted", "1234567890", 2, 15),
    ];
    for (text, user, agent, device) in cases {
        parses_to(text, user, agent, device);
    }
    assert_eq!(
        Jid::parse("1234567890.2:15@hosted").unwrap().server(),
        Server::Hosted
    );
}

#[test]
fn text_round_trips() {
    // (text, user, server, device)
    let cases = [
        ("1234567890@s.whatsapp.net", "1234567890", Server::Pn, 0u16),
        ("1234567890:15@s.whatsapp.net", "1234567890", Server::Pn, 15),
        ("123-456@g.us", "123-456", Server::Group, 0),
        ("s.whatsapp.net", "", Server::Pn, 0),
        ("12345.6789@lid", "12345.6789", Server::Lid, 0),
        ("12345.6789:25@lid", "12345.6789", Server::Lid, 25),
        ("12345@call", "12345", Server::Call, 0),
        ("status@broadcast", "status", Server::Broadcast, 0),
    ];
    for (text, user, server, device) in cases {
        let jid = parses_to(text, user, 0, device);
        assert_eq!(jid.server(), server, "{text}");
        assert_eq!(jid.to_string(), text);
        assert_eq!(jid, text);
    }
}

#[test]
fn what_does_not_parse() {
    for text in [
        "thisisnotajid",
        "",
        "@unknown.server",
        "2",
        "user@example.com",
    ] {
        assert!(Jid::parse(text).is_err(), "{text:?}");
    }
    // A bare "@server" names the server.
    let jid = Jid::parse("@s.whatsapp.net").unwrap();
    assert!(jid.user().is_empty());
    assert_eq!(jid.to_string(), "s.whatsapp.net");
}

#[test]
fn display_shows_the_agent_only_where_the_server_renders_one() {
    // (user, server, agent, device, text)
    let cases = [
        ("", Server::Pn, 0u8, 0u16, "s.whatsapp.net"),
        ("", Server::Pn, 1, 7, "s.whatsapp.net"),
        (
            "5511999887766",
            Server::Pn,
            0,
            0,
            "5511999887766@s.whatsapp.net",
        ),
        (
            "5511999887766",
            Server::Pn,
            0,
            2,
            "5511999887766:2@s.whatsapp.net",
        ),
        (
            "5511999887766",
            Server::Pn,
            3,
            15,
            "5511999887766:15@s.whatsapp.net",
        ),
        (
            "1234567890",
            Server::Pn,
            2,
            15,
            "1234567890:15@s.whatsapp.net",
        ),
        ("12345.6789", Server::Lid, 1, 25, "12345.6789:25@lid"),
        ("1234567890", Server::Hosted, 2, 15, "1234567890:15@hosted"),
        (
            "100000012345678",
            Server::Hosted,
            2,
            99,
            "100000012345678:99@hosted",
        ),
        (
            "100000012345678",
            Server::HostedLid,
            1,
            99,
            "100000012345678:99@hosted.lid",
        ),
        (
            "120363012345678901",
            Server::Group,
            0,
            0,
            "120363012345678901@g.us",
        ),
        ("user", Server::Bot, 5, 10, "user.5:10@bot"),
        (
            "447911123456",
            Server::Interop,
            3,
            0,
            "447911123456.3@interop",
        ),
        (
            "messenger_user",
            Server::Messenger,
            0,
            50,
            "messenger_user:50@msgr",
        ),
        ("status", Server::Broadcast, 0, 0, "status@broadcast"),
        (
            "newsletter_id",
            Server::Newsletter,
            0,
            0,
            "newsletter_id@newsletter",
        ),
        (
            "447911123456789",
            Server::Pn,
            255,
            65535,
            "447911123456789:65535@s.whatsapp.net",
        ),
        ("1", Server::LegacyUser, 0, 1, "1:1@c.us"),
    ];
    for (user, server, agent, device, text) in cases {
        let jid = Jid::new(user, server).with_agent(agent).with_device(device);
        assert_eq!(jid.to_string(), text);
        assert_eq!(jid, text, "{text}");
        assert_eq!(jid.rendered_len(), text.len(), "{text}");
    }
    let long = "9".repeat(61);
    assert_eq!(Jid::lid(&long).to_string(), format!("{long}@lid"));
    let unicode = "héllo→世界";
    assert_eq!(Jid::lid(unicode).to_string(), "héllo→世界@lid");
}

#[test]
fn comparing_with_text_renders_nothing_and_matches_exactly() {
    let canonical = "123456789.4:17@interop";
    let jid = Jid::parse(canonical).unwrap();
    for text in [canonical, "123456789.4:16@interop", "123456789@interop", ""] {
        assert_eq!(jid == text, text == canonical, "{text:?}");
    }
    let user = "a".repeat(128);
    let text = format!("{user}@lid");
    assert_eq!(Jid::lid(&user), text.as_str());
    assert_ne!(Jid::lid(&user), format!("{text}x").as_str());
    // Only the rendered parts: an agent on s.whatsapp.net is not.
    let a = Jid::pn_device("12025550111", 7).with_agent(1);
    let b = Jid::pn_device("12025550111", 7).with_agent(2);
    assert_eq!(a.to_string(), b.to_string());
    assert_eq!(a, b);
    assert_ne!(a, a.with_device(8));
    let bot = Jid::new("13136555001", Server::Bot).with_agent(1);
    assert_ne!(bot, bot.with_agent(2));
    assert_ne!(bot.to_string(), bot.with_agent(2).to_string());
}

#[test]
fn constructors() {
    let jid = Jid::pn("1234567890");
    assert_eq!(
        (jid.user(), jid.server(), jid.device()),
        (JidUser::text("1234567890"), Server::Pn, 0)
    );
    assert!(jid.is_pn());
    let jid = Jid::lid("100000012345678");
    assert_eq!(jid.server(), Server::Lid);
    assert!(jid.is_lid());
    let jid = Jid::group("123456789-1234567890");
    assert_eq!(jid.user(), "123456789-1234567890");
    assert!(jid.is_group());
    let jid = Jid::pn_device("1234567890", 5);
    assert_eq!((jid.device(), jid.server()), (5, Server::Pn));
    assert!(jid.is_pn() && jid.is_ad());
    let jid = Jid::lid_device("100000012345678", 33);
    assert_eq!((jid.device(), jid.server()), (33, Server::Lid));
    assert!(jid.is_lid() && jid.is_ad());
    let jid = Jid::newsletter("120363000000000000");
    assert!(jid.is_newsletter());
    assert_eq!(jid, "120363000000000000@newsletter");
}

#[test]
fn is_ad_needs_a_device_server_and_is_lid_is_lid_only() {
    assert!(Jid::new("1", Server::Hosted).with_device(3).is_ad());
    assert!(Jid::new("1", Server::HostedLid).with_device(3).is_ad());
    assert!(!Jid::new("1", Server::Messenger).with_device(3).is_ad());
    assert!(!Jid::new("1", Server::Interop).with_device(3).is_ad());
    assert!(!Jid::pn("1").is_ad());
    assert!(!Jid::new("1", Server::HostedLid).is_lid());
    assert!(Server::HostedLid.is_lid_family() && Server::Lid.is_lid_family());
    assert!(Server::Hosted.is_pn_family() && !Server::Lid.is_pn_family());
}

#[test]
fn status_broadcast_and_broadcast_lists() {
    let jid = Jid::status_broadcast();
    assert_eq!(
        (jid.user(), jid.server(), jid.device()),
        (JidUser::text("status"), Server::Broadcast, 0)
    );
    assert!(jid.is_status_broadcast());
    assert!(!jid.is_group() && !jid.is_broadcast_list());
    assert_eq!(jid.to_string(), "status@broadcast");
    let parsed = Jid::parse("status@broadcast").unwrap();
    assert!(parsed.is_status_broadcast());
    assert_eq!(parsed, jid);
    let list = Jid::new("12345", Server::Broadcast);
    assert!(list.is_broadcast_list() && !list.is_status_broadcast());
    let group = Jid::parse("120363012345678901@g.us").unwrap();
    assert!(group.is_group() && !group.is_status_broadcast());
}

#[test]
fn psa() {
    for text in ["0@s.whatsapp.net", "0@c.us"] {
        assert!(Jid::parse(text).unwrap().is_psa(), "{text}");
    }
    for text in ["10@s.whatsapp.net", "0@lid", "status@broadcast", "0@g.us"] {
        assert!(!Jid::parse(text).unwrap().is_psa(), "{text}");
    }
}

#[test]
fn bots() {
    for (text, bot) in [
        ("assistant@bot", true),
        ("13135551234@s.whatsapp.net", true),
        ("131655500123@s.whatsapp.net", true),
        ("13135551234:2@s.whatsapp.net", false),
        ("5511999887766@s.whatsapp.net", false),
        ("13135551234@lid", false),
    ] {
        assert_eq!(Jid::parse(text).unwrap().is_bot(), bot, "{text}");
    }
}

#[test]
fn hosted_devices() {
    let hosted = [
        "5511999887766:99@s.whatsapp.net",
        "100000012345678:99@lid",
        "5511999887766:99@hosted",
        "100000012345678:99@hosted.lid",
        "5511999887766:0@hosted",
    ];
    let not_hosted = [
        "5511999887766:0@s.whatsapp.net",
        "5511999887766:33@s.whatsapp.net",
        "100000012345678:0@lid",
        "100000012345678:33@lid",
        "120363012345678@g.us",
        "5511999887766@s.whatsapp.net",
        "13136555001:0@s.whatsapp.net",
    ];
    for text in hosted {
        assert!(Jid::parse(text).unwrap().is_hosted(), "{text}");
    }
    for text in not_hosted {
        assert!(!Jid::parse(text).unwrap().is_hosted(), "{text}");
    }
    // A group's fan-out leaves hosted devices out.
    let devices = [
        "5511999887766:0@s.whatsapp.net",
        "5511999887766:33@s.whatsapp.net",
        "5521988776655:0@s.whatsapp.net",
        "100000012345678:0@lid",
        "100000012345678:33@lid",
        "5531977665544:99@s.whatsapp.net",
        "100000087654321:99@lid",
        "5541966554433:99@hosted",
    ];
    let parsed: Vec<Jid<'_>> = devices.iter().map(|t| Jid::parse(t).unwrap()).collect();
    assert_eq!(parsed.iter().filter(|j| !j.is_hosted()).count(), 5);
    assert_eq!(parsed.iter().filter(|j| j.is_hosted()).count(), 3);
}

#[test]
fn device_hosting_keeps_the_addressing_family() {
    let jid = Jid::pn("1234567890").with_device_hosting(7, true);
    assert_eq!((jid.server(), jid.device()), (Server::Hosted, 7));
    let jid = Jid::lid("100000012345678").with_device_hosting(8, true);
    assert_eq!((jid.server(), jid.device()), (Server::HostedLid, 8));
    assert_eq!(
        Jid::pn("1234567890").with_device_hosting(9, false).server(),
        Server::Pn
    );
    assert_eq!(
        Jid::new("1234567890", Server::Hosted)
            .with_device_hosting(9, false)
            .server(),
        Server::Pn
    );
    assert_eq!(
        Jid::group("123-456").with_device_hosting(10, true).server(),
        Server::Group
    );
}

#[test]
fn non_ad_forms() {
    let jid = Jid::pn_device("1234567890", 33).to_non_ad();
    assert_eq!(
        (jid.user(), jid.server(), jid.device()),
        (JidUser::text("1234567890"), Server::Pn, 0)
    );
    assert!(!jid.is_ad());
    let jid = Jid::lid_device("100000012345678", 25).to_non_ad();
    assert_eq!((jid.server(), jid.device()), (Server::Lid, 0));
    assert_eq!(
        Jid::status_broadcast().to_non_ad().to_string(),
        "status@broadcast"
    );
    // (text, its non-AD text)
    for (text, non_ad) in [
        ("1234567890:33@s.whatsapp.net", "1234567890@s.whatsapp.net"),
        ("1234567890@s.whatsapp.net", "1234567890@s.whatsapp.net"),
        (
            "1234567890.2:33@s.whatsapp.net",
            "1234567890.2@s.whatsapp.net",
        ),
        ("100000012345678:25@lid", "100000012345678@lid"),
        ("867051314767696:0@bot", "867051314767696@bot"),
        ("867051314767696.5:10@bot", "867051314767696@bot"),
        ("user.5:10@bot", "user@bot"),
        ("447911123456.3@interop", "447911123456@interop"),
        ("120363021033254949@g.us", "120363021033254949@g.us"),
        ("status@broadcast", "status@broadcast"),
        ("12-34@g.us", "12-34@g.us"),
    ] {
        let jid = Jid::parse(text).unwrap();
        assert_eq!(jid.to_non_ad_string(), non_ad, "{text}");
        assert_eq!(jid.to_non_ad().to_string(), non_ad, "{text}");
    }
    let user = "9".repeat(80);
    let text = format!("{user}:12@s.whatsapp.net");
    assert_eq!(
        Jid::parse(&text).unwrap().to_non_ad_string(),
        format!("{user}@s.whatsapp.net")
    );
    let multibyte = "ẞünïcodé-ñ".repeat(3);
    assert_eq!(
        Jid::group(&multibyte).to_non_ad_string(),
        format!("{multibyte}@g.us")
    );
    assert_eq!(
        Jid::new("", Server::Pn).to_non_ad_string(),
        "s.whatsapp.net"
    );
}

#[test]
fn same_chat_and_same_device() {
    let base = Jid::parse("5511999887766@s.whatsapp.net").unwrap();
    assert!(base.is_same_chat_as(&base.with_device(33)));
    assert!(base.with_device(5).is_same_chat_as(&base.with_device(0)));
    assert!(!base.is_same_chat_as(&Jid::parse("5521988776655@s.whatsapp.net").unwrap()));
    assert!(!base.is_same_chat_as(&Jid::parse("5511999887766@lid").unwrap()));
    assert!(!base.is_same_chat_as(&base.with_integrator(1)));
    assert!(base.is_same_chat_as(&base.with_agent(1)));
    let bot = Jid::new("13136555001", Server::Bot).with_agent(1);
    assert!(!bot.is_same_chat_as(&bot.with_agent(2)));
    assert!(bot.is_same_chat_as(&bot.with_device(7)));

    let device = Jid::pn_device("5511999887766", 3);
    assert!(device.device_eq(&device.with_agent(4)));
    assert!(!device.device_eq(&device.with_device(4)));
    assert!(!device.device_eq(&Jid::lid_device("5511999887766", 3)));
    let mut keys = std::collections::HashSet::new();
    keys.insert(device.device_key());
    assert!(
        keys.contains(
            &Jid::parse("5511999887766:3@s.whatsapp.net")
                .unwrap()
                .device_key()
        )
    );
    assert!(!keys.contains(&device.with_device(4).device_key()));
}

#[test]
fn observe_hides_phone_numbers_only() {
    let pn = Jid::parse("5511999998888:7@s.whatsapp.net").unwrap();
    let shown = pn.observe().to_string();
    assert!(shown.starts_with("pn#"), "{shown}");
    assert!(!shown.contains("5511999998888"), "{shown}");
    assert!(shown.ends_with(":7@s.whatsapp.net"), "{shown}");
    assert_eq!(shown, pn.observe().to_string(), "stable within a run");

    for text in ["123456789@lid", "120363012345678901@g.us"] {
        let jid = Jid::parse(text).unwrap();
        assert_eq!(jid.observe().to_string(), text);
    }
    let legacy = Jid::parse("123456789-1620000000@g.us").unwrap();
    let shown = legacy.observe().to_string();
    assert!(
        shown.starts_with("pn#") && shown.ends_with("-1620000000@g.us"),
        "{shown}"
    );
    assert!(!shown.contains("123456789"), "{shown}");
    let token = &shown["pn#".len()..shown.find('-').unwrap()];
    assert_eq!(token.len(), 16, "{shown}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{shown}");
    assert_eq!(
        Jid::lid("héllo→世界").observe().to_string(),
        "héllo→世界@lid"
    );
}

#[test]
fn a_packed_user_reads_as_text_too() {
    // <iq jid=AD_JID(0, 3, NIBBLE_8 "5511999990000")/>: token 25 is iq, 12 jid.
    let bytes = [
        0xF8, 0x03, 25, 12, 0xF7, 0x00, 0x03, 0xFF, 0x87, 0x55, 0x11, 0x99, 0x99, 0x90, 0x00, 0x0F,
    ];
    let arena = quarry_core::Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    let jid = node.attr("jid").and_then(|v| v.as_jid()).unwrap();
    assert_eq!(jid.user().as_unpacked_str(), None);
    assert_eq!(jid.user_string(), "5511999990000");
    assert_eq!(jid.user_base(), "5511999990000");
    assert!(jid.user().starts_with("551199"));
    assert_eq!(
        jid.device_key(),
        Jid::pn_device("5511999990000", 3).device_key()
    );
    assert_eq!(
        hash_of(&jid.device_key()),
        hash_of(&Jid::pn_device("5511999990000", 3).device_key())
    );
    assert_eq!(Jid::pn("123:4").user_base(), "123");
}

#[test]
fn owned_jids_agree_with_views() {
    use quarry_wa::OwnedJid;
    let a = OwnedJid::pn_device("5511999887766", 7).with_agent(1);
    let b = OwnedJid::pn_device("5511999887766", 7);
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    assert_eq!(a.to_string(), "5511999887766:7@s.whatsapp.net");
    assert!(a.is_pn() && a.is_ad() && !a.is_hosted());
    assert_eq!(a.to_non_ad_string(), "5511999887766@s.whatsapp.net");
    assert_eq!(OwnedJid::status_broadcast(), "status@broadcast");
    assert!(OwnedJid::lid("1").is_lid() && OwnedJid::group("1").is_group());
    let bot = OwnedJid::new("user", Server::Bot).with_agent(5);
    assert_ne!(bot, OwnedJid::new("user", Server::Bot));
}

/// The twelve server names WhatsApp's JID grammar knows (wacore-binary's
/// server constants), each read back as its server; near misses (a prefix,
/// a different case, a name one byte longer) name none.
#[test]
fn server_names_read_back_and_near_misses_do_not() {
    let names = [
        ("s.whatsapp.net", Server::Pn),
        ("lid", Server::Lid),
        ("g.us", Server::Group),
        ("broadcast", Server::Broadcast),
        ("newsletter", Server::Newsletter),
        ("hosted", Server::Hosted),
        ("hosted.lid", Server::HostedLid),
        ("msgr", Server::Messenger),
        ("interop", Server::Interop),
        ("bot", Server::Bot),
        ("c.us", Server::LegacyUser),
        ("call", Server::Call),
    ];
    for (name, server) in names {
        assert_eq!(Server::from_name(name), Some(server), "{name}");
        assert_eq!(server.as_str(), name);
        assert_eq!(
            Server::from_name(&name[..name.len() - 1]),
            None,
            "{name} cut"
        );
        assert_eq!(Server::from_name(&format!("{name}x")), None, "{name}x");
        assert_eq!(
            Server::from_name(&name.to_uppercase()),
            None,
            "{name} upper"
        );
    }
    assert_eq!(Server::ALL.len(), names.len());
    assert_eq!(Server::from_name(""), None);
    assert_eq!(Server::from_name("s.whatsapp.neT"), None);
}
