//! The space lifecycle: delete hides, restore within 7 days returns the
//! space, and a durable job removes it for good after 7 days.

use std::time::Duration;

use serde_json::json;

use crate::support::both_backends;

both_backends! {
    async fn restore_on_day_six_gone_on_day_eight(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Precious", None).await;
        let path = format!("/v1/spaces/{space}");

        app.post(&ada, &format!("{path}/restore"), json!(null)).await.assert_status(400);
        app.delete(&ada, &path).await.assert_status(204);
        app.get(&ada, &path).await.assert_status(404);
        assert!(app.ids(&ada, &format!("/v1/orgs/{org}/spaces")).await.is_empty());
        app.delete(&ada, &path).await.assert_status(204);

        app.clock.advance_days(6);
        assert_eq!(app.run_due_jobs().await, 0, "nothing is due on day 6");
        let restored = app.post(&ada, &format!("{path}/restore"), json!(null)).await;
        restored.assert_status(200);
        assert!(restored.body.get("deletedAt").is_none());
        app.get(&ada, &path).await.assert_status(200);

        // The purge queued by the first delete finds a live space and leaves it.
        app.clock.advance_days(2);
        assert_eq!(app.run_due_jobs().await, 1);
        app.get(&ada, &path).await.assert_status(200);

        app.delete(&ada, &path).await.assert_status(204);
        app.clock.advance_days(8);
        let expired = app.post(&ada, &format!("{path}/restore"), json!(null)).await;
        expired.assert_status(404);
        assert_eq!(app.run_due_jobs().await, 1);
        app.post(&ada, &format!("{path}/restore"), json!(null)).await.assert_status(404);
        assert!(
            matches!(quire_store::spaces::get_any(&mut app.db.read().await.unwrap(), &space).await, Err(quire_store::StoreError::NotFound)),
            "the space row is gone for good"
        );
    }

    async fn deleting_absent_or_hidden_spaces_is_204(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Mine", None).await;
        app.delete(&ada, "/v1/spaces/doesnotexist").await.assert_status(204);
        app.delete(&eve, &format!("/v1/spaces/{space}")).await.assert_status(204);
        app.get(&ada, &format!("/v1/spaces/{space}")).await.assert_status(200);
    }

    async fn the_background_worker_purges_due_spaces(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Old", None).await;
        app.delete(&ada, &format!("/v1/spaces/{space}")).await.assert_status(204);
        app.clock.advance_days(8);

        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(quire_app::jobs::work(
            app.state.app.clone(),
            std::sync::Arc::new(quire_server::features::job_registry()),
            quire_app::jobs::Workers::default(),
            async {
                let _ = stopped.await;
            },
        ));
        // Poll (bounded) until the worker has removed the space.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let mut conn = app.db.read().await.unwrap();
            if matches!(quire_store::spaces::get_any(&mut conn, &space).await, Err(quire_store::StoreError::NotFound)) {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "the worker did not purge the space in time");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = stop.send(());
        worker.await.unwrap();
    }
}
